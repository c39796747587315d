/**
 * svc.js, the browser tracker (behaviour: ../README.md; contract: SPEC "Browser event" and "Events").
 *
 * Every byte here ships with every page view of every site, so the code is shaped for gzip size:
 * the build (../scripts/build.ts) fails above 1,024 gzip bytes. Repeated literals ("data-", "pageview",
 * "addEventListener") are cheap after gzip; extra identifiers and branches are not.
 */
export {};

type Props = Record<string, unknown>;

declare global {
  interface Window {
    /** Defined once the script has booted (SPEC rule 2): early callers guard with `window.svc?.(…)`. */
    svc?: (name: string, props?: Props) => void;
  }
}

((l) => {
  // The host page must never see an exception from us: a missing currentScript (script loaded as a
  // module, or by a loader) or an unparsable src just leaves the page untracked.
  try {
    const script = document.currentScript as HTMLScriptElement;
    const attr = (name: string) => script.getAttribute("data-" + name);
    const domain = attr("domain") || l.hostname;
    // ?d= is what a load balancer in front of several gateways routes the site by (HAProxy `url_param d`).
    const endpoint = (attr("api") || new URL(script.src).origin) + "/api/event?d=" + encodeURIComponent(domain);
    const hashRouting = attr("hash") == "true";
    let ignored: unknown;
    // The only storage access (SPEC rule 5): one read, guarded because it throws when storage is blocked.
    try {
      ignored = localStorage.svc_ignore;
    } catch {}
    // Without hash routing the fragment is not a page, and it may carry secrets (OAuth implicit-flow
    // tokens), so it is neither sent nor compared.
    const url = () => (hashRouting ? l.href : l.href.split("#")[0]!);
    let lastPageview: string | undefined;

    // A keepalive fetch outlives the page (outbound and download clicks) like a beacon, and unlike a beacon
    // shows its answer: a 503 means nothing was stored (a site moving between gateways, a database restart),
    // so the same event is sent again after Retry-After, at most 3 times. A string body is text/plain, a
    // CORS-safelisted type: no preflight. A failure stays silent (an unparsable data-api, a host down).
    const post = (data: string, n: number): unknown =>
      fetch(endpoint, { method: "POST", keepalive: true, body: data }).then((r) => {
        if (r.status == 503 && n < 3) setTimeout(post, +(r.headers.get("retry-after") || 1) * 1e3, data, n + 1);
      }, Object);

    const send = (n: string, p?: Props) => {
      try {
        const u = url();
        // Cut to the gateway's limits (2,048 for the URL, 256 for UTM values) so a long URL loses its tail, not
        // the event. The referrer needs no cut: browsers' default policy sends other sites only an origin.
        const body: Props = { d: domain, n, u: u.slice(0, 2048), r: document.referrer, h: l.hostname, w: screen.width };
        if (n == "pageview") lastPageview = u;
        // Every utm_* key of the query string, as the spec names them; the gateway ignores keys it does not know.
        new URLSearchParams(l.search).forEach((value, key) => {
          if (/^utm_/.test(key)) body[key] = value.slice(0, 256);
        });
        // `p` only when there is at least one prop.
        for (const _ in p) {
          body.p = p;
          break;
        }
        post(JSON.stringify(body), 0);
      } catch {}
    };

    if (!ignored) {
      // Routers re-announce the same URL (replaceState for scroll state, popstate after a hash link),
      // so an automatic pageview is skipped when the URL equals the last pageview's.
      const pageview = () => url() != lastPageview && send("pageview");

      for (const method of ["pushState", "replaceState"] as const) {
        const original = history[method];
        history[method] = function (this: History) {
          original.apply(this, arguments as never);
          pageview();
        };
      }
      // popstate also covers fragment changes: every browser fires it when navigating to a fragment (before
      // hashchange), so with data-hash the fragment only has to be part of the compared URL.
      addEventListener("popstate", pageview);

      const click = (e: MouseEvent) => {
        try {
          // click: primary button, also with ctrl/cmd/shift and Enter on a focused link;
          // auxclick: 1 is the middle button (open in new tab), 2 and up are the context menu and back/forward.
          if (e.button > 1) return;
          const target = e.target as Element;
          const tagged = target.closest("[data-svc-event]");
          const link = target.closest("a[href]") as HTMLAnchorElement | null;
          const props: Props = {};
          if (tagged) {
            // A tagged element (or ancestor) wins over the link detectors: one click, one event.
            for (const a of tagged.attributes as unknown as Attr[])
              if (a.name.startsWith("data-svc-prop-")) props[a.name.slice(14)] = a.value;
            send(tagged.getAttribute("data-svc-event")!, props);
          } else if (link) {
            // 256: the longest prop value the gateway accepts (core LIMITS.propValue); a longer one would get
            // the whole event rejected, a cut one still names the destination.
            props.url = link.href.slice(0, 256);
            // Extension on the path only: query and fragment are ignored by reading `pathname`.
            // A download link to another host is a File Download, the more specific of the two.
            if (/\.(pdf|zip|csv|xlsx|docx|png|mp4)$/i.test(link.pathname)) send("File Download", props);
            // `host` is empty for mailto:, tel: and javascript: links.
            else if (link.host && link.host != l.host) send("Outbound Link", props);
          }
        } catch {}
      };
      // Capture phase: a page handler calling stopPropagation() must not hide the click from us.
      addEventListener("click", click, true);
      addEventListener("auxclick", click, true);
      pageview();
    }
    // When ignored, a no-op keeps unguarded calls after load from throwing in the host page.
    window.svc = ignored ? () => {} : send;
  } catch {}
})(location);
