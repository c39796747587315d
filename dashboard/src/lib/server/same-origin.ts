// Form posts to the dashboard's own routes (sign-in, sign-out) must come from a page of the dashboard:
// a browser says so with Sec-Fetch-Site, and with an Origin whose host is the host it sent the request to.
// Checked against the Host header, so it holds over plain HTTP and behind a TLS proxy alike.
export function isSameOriginPost(request: Request): boolean {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") return false;
  const origin = request.headers.get("origin");
  if (origin === null || origin === "null") return site !== null;
  try {
    return new URL(origin).host === request.headers.get("host");
  } catch {
    return false;
  }
}
