/**
 * Init scripts (passed to `openPage`) that let a test watch the real tracker from inside the page. They are
 * source strings, not functions, so no transpiler helper can leak into the browser. Each wraps a real browser
 * API and calls through to it: the requests still leave, storage still works.
 */

export interface RecordedSend {
  readonly via: "beacon" | "fetch";
  readonly url: string;
  readonly body: string;
  /** fetch only: how the request ended, once it has. */
  readonly settled?: "pending" | "fulfilled" | "rejected";
}

/**
 * `window.__svcSends`: every sendBeacon and fetch call, in call order; `window.__svcRejections`: every
 * unhandled promise rejection of the page. The tracker sends synchronously inside
 * the handler that triggered it, so right after an action the list is final: this is how a test proves that
 * something was NOT sent without sleeping.
 */
export const RECORD_SENDS = `(() => {
  const sends = [];
  Object.defineProperty(window, "__svcSends", { value: sends });
  const beacon = Navigator.prototype.sendBeacon;
  if (beacon) {
    Navigator.prototype.sendBeacon = function (url, data) {
      sends.push({ via: "beacon", url: String(url), body: String(data) });
      return beacon.call(this, url, data);
    };
  }
  const originalFetch = window.fetch;
  window.fetch = function (input, init) {
    const record = { via: "fetch", url: String(input), body: String(init && init.body), settled: "pending" };
    sends.push(record);
    const result = originalFetch.call(this, input, init);
    result.then(() => { record.settled = "fulfilled"; }, () => { record.settled = "rejected"; });
    // The caller gets a derived promise, so a rejection it leaves unhandled still surfaces as one.
    return result.then((response) => response);
  };
  const rejections = [];
  Object.defineProperty(window, "__svcRejections", { value: rejections });
  addEventListener("unhandledrejection", (event) => rejections.push(String(event.reason)));
})();`;

/** A browser without navigator.sendBeacon; add it before RECORD_SENDS. */
export const REMOVE_SEND_BEACON = `delete Navigator.prototype.sendBeacon;`;

export interface StorageProbe {
  /** How often the page read `window.localStorage` / `window.sessionStorage`. */
  readonly reads: { readonly localStorage: number; readonly sessionStorage: number };
  /** Every setItem/removeItem/clear call and every document.cookie assignment, by anyone. */
  readonly writes: readonly string[];
  /** Both storages at document start, as plain objects. */
  readonly initial: StorageSnapshot;
}

export interface StorageSnapshot {
  readonly localStorage: Record<string, string | null>;
  readonly sessionStorage: Record<string, string | null>;
}

/**
 * `window.__svcStorage` (a StorageProbe) and `window.__svcStorageNow()` (a StorageSnapshot that does not count
 * as a read). Counts reads of the storage globals, records writes to storage and cookies.
 */
export const WATCH_STORAGE = `(() => {
  try {
    const probe = { reads: { localStorage: 0, sessionStorage: 0 }, writes: [] };
    const stores = {};
    for (const name of ["localStorage", "sessionStorage"]) {
      const owner = Object.getOwnPropertyDescriptor(window, name) ? window : Window.prototype;
      const getter = Object.getOwnPropertyDescriptor(owner, name).get;
      stores[name] = getter.call(window);
      Object.defineProperty(window, name, {
        configurable: true,
        enumerable: true,
        get() { probe.reads[name]++; return getter.call(window); },
      });
    }
    for (const method of ["setItem", "removeItem", "clear"]) {
      const original = Storage.prototype[method];
      Storage.prototype[method] = function (...args) {
        probe.writes.push(method + " " + args.join(" "));
        return original.apply(this, args);
      };
    }
    const cookie = Object.getOwnPropertyDescriptor(Document.prototype, "cookie");
    Object.defineProperty(Document.prototype, "cookie", {
      configurable: true,
      enumerable: true,
      get() { return cookie.get.call(this); },
      set(value) { probe.writes.push("cookie " + value); cookie.set.call(this, value); },
    });
    const snapshot = () => {
      const out = {};
      for (const name in stores) {
        const store = stores[name];
        out[name] = {};
        for (let i = 0; i < store.length; i++) out[name][store.key(i)] = store.getItem(store.key(i));
      }
      return out;
    };
    probe.initial = snapshot();
    Object.defineProperty(window, "__svcStorage", { value: probe });
    Object.defineProperty(window, "__svcStorageNow", { value: snapshot });
  } catch {}
})();`;

/** Minimal view of a Playwright page, so this file stays free of Playwright types. */
interface EvaluatingPage {
  evaluate<T>(expression: string): Promise<T>;
}

/** The tracker's send calls so far in this document (needs RECORD_SENDS). */
export const recordedSends = (page: EvaluatingPage): Promise<RecordedSend[]> =>
  page.evaluate<RecordedSend[]>("window.__svcSends ? [...window.__svcSends] : []");

/** The JSON bodies of the tracker's send calls so far. */
export const recordedBodies = async (page: EvaluatingPage): Promise<Record<string, unknown>[]> =>
  (await recordedSends(page)).map((send) => JSON.parse(send.body) as Record<string, unknown>);

/** The storage probe (needs WATCH_STORAGE). */
export const storageProbe = (page: EvaluatingPage): Promise<StorageProbe> =>
  page.evaluate<StorageProbe>("JSON.parse(JSON.stringify(window.__svcStorage))");

/** Both storages now, read without counting as a page read (needs WATCH_STORAGE). */
export const storageNow = (page: EvaluatingPage): Promise<StorageSnapshot> =>
  page.evaluate<StorageSnapshot>("window.__svcStorageNow()");

/** Unhandled promise rejections of the page so far (needs RECORD_SENDS). */
export const unhandledRejections = (page: EvaluatingPage): Promise<string[]> =>
  page.evaluate<string[]>("window.__svcRejections ? [...window.__svcRejections] : []");
