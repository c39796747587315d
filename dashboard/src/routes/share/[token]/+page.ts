// A shared link's view renders in the browser only: its reads go through the link (lib/api.ts
// readThroughSharedLink), a browser-side setting that must never be shared by the server's requests.
export const ssr = false;
