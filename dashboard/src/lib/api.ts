// The browser's calls to the gateway, through the dashboard's own /api proxy (one origin, so the session
// cookie just works). Every state-changing request is JSON; every failure is an ApiFailure carrying the
// gateway's `{"error"}` message, which the pages show as it is.
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfter: number | null = null,
    /** A 400's field errors (`details`: which field, what is wrong with it). */
    readonly details: readonly { path: string; message: string }[] = [],
  ) {
    super(message);
  }
}

type Fetch = typeof fetch;

async function request<T>(method: string, path: string, body: unknown, fetcher: Fetch, signal?: AbortSignal): Promise<T> {
  let res: Response;
  try {
    res = await fetcher(path, {
      method,
      ...(signal ? { signal } : {}),
      headers: body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      credentials: "same-origin",
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ApiFailure(0, "the dashboard server is not reachable");
  }
  if (res.status === 204) return null as T;
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!res.ok) {
    const message = json && typeof (json as { error?: unknown }).error === "string" ? (json as { error: string }).error : `the API answered ${res.status}`;
    const retry = Number(res.headers.get("retry-after"));
    const details = (json as { details?: unknown } | null)?.details;
    const fields = Array.isArray(details) ? details.filter((d): d is { path: string; message: string } => typeof d?.path === "string" && typeof d?.message === "string") : [];
    throw new ApiFailure(res.status, message, Number.isFinite(retry) && retry > 0 ? retry : null, fields);
  }
  return json as T;
}

export const api = {
  get: <T>(path: string, fetcher: Fetch = fetch) => request<T>("GET", path, undefined, fetcher),
  post: <T>(path: string, body: unknown = {}, fetcher: Fetch = fetch, signal?: AbortSignal) => request<T>("POST", path, body, fetcher, signal),
  patch: <T>(path: string, body: unknown, fetcher: Fetch = fetch) => request<T>("PATCH", path, body, fetcher),
  delete: <T>(path: string, fetcher: Fetch = fetch) => request<T>("DELETE", path, undefined, fetcher),
};

/** A read that may not exist yet on this gateway (insights, anomalies): null on 404 or 405, so the card hides. */
export async function optionalGet<T>(path: string): Promise<T | null> {
  try {
    return await api.get<T>(path);
  } catch (error) {
    if (error instanceof ApiFailure && (error.status === 404 || error.status === 405 || error.status === 501)) return null;
    throw error;
  }
}

/** The failure in a sentence: the field errors of a 400 ("domain: …") when it has them, else its message. */
export const failureText = (error: ApiFailure) => (error.details.length ? error.details.map((d) => (d.path ? `${d.path.replaceAll("_", " ")}: ${d.message}` : d.message)).join("; ") : error.message);

/**
 * A shared link's view (routes/share) reads the same reports through `/api/share/{token}/…`, with the access key
 * its password gave (`?access=`: an EventSource cannot send headers). Set only in the browser (that route does
 * not render on the server), so no server request ever sees another viewer's link.
 */
let sharedLink: { token: string; access: string | null } | null = null;
export function readThroughSharedLink(link: { token: string; access: string | null } | null): void {
  sharedLink = link;
}

export const sitePath = (site: string | number, rest = "") => {
  if (sharedLink === null) return `/api/sites/${encodeURIComponent(String(site))}${rest}`;
  const access = sharedLink.access === null ? "" : `${rest.includes("?") ? "&" : "?"}access=${encodeURIComponent(sharedLink.access)}`;
  return `/api/share/${encodeURIComponent(sharedLink.token)}${rest}${access}`;
};

/** Where the view's POST /api/v2/query questions go: the query API, or a shared link's own (its filters and actor added by the gateway). */
export const queryPath = (): string => (sharedLink === null ? "/api/v2/query" : sitePath("", "/query"));
