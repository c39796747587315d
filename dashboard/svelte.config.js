// SvelteKit on adapter-node: `npm run build -w dashboard` writes a standalone server to build/, started with
// `node dashboard/build`. Its environment variables carry the SVC_DASHBOARD_ prefix (PORT, HOST, ORIGIN…).
import adapter from "@sveltejs/adapter-node";

/** @type {import('@sveltejs/kit').Config} */
export default {
  kit: {
    adapter: adapter({ envPrefix: "SVC_DASHBOARD_" }),
    paths: { relative: false },
    // SvelteKit's own origin check compares against https://<host> unless SVC_DASHBOARD_ORIGIN is set, so a
    // plain-HTTP install (npm start on :3000) would refuse its own sign-in form. hooks.server.ts checks
    // form posts itself, from the Host header whatever the scheme (src/lib/server/same-origin.ts).
    csrf: { trustedOrigins: ["*"] },
    // SVC_PUBLIC_API_URL reaches the browser (the install snippets); nothing else from the environment does.
    env: { publicPrefix: "SVC_PUBLIC_", privatePrefix: "" },
    // Every script and style is our own bundle: no CDN, no inline data URLs from elsewhere.
    csp: {
      mode: "hash",
      directives: {
        "default-src": ["self"],
        "script-src": ["self"],
        "style-src": ["self", "unsafe-inline"],
        "img-src": ["self", "data:"],
        "connect-src": ["self"],
        "font-src": ["self"],
        "object-src": ["none"],
        "base-uri": ["none"],
        "frame-ancestors": ["none"],
        "form-action": ["self"],
      },
    },
  },
};
