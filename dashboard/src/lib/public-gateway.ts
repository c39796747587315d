// The gateway's URL as visitors' browsers and site owners' servers reach it, for the install snippets.
// The dashboard talks to the gateway through its own /api proxy, but ingest must go to the gateway
// directly (through the proxy every visitor would arrive from the dashboard's address). Set
// SVC_PUBLIC_API_URL when the gateway is published elsewhere; otherwise this host at SVC_PUBLIC_API_PORT,
// which `npm start` sets to the gateway's port (SVC_PORT), else 8080.
import { env } from "$env/dynamic/public";

const DEFAULT_PORT = "8080";

export function publicGatewayUrl(location: URL): string {
  const configured = env.SVC_PUBLIC_API_URL?.trim();
  if (configured && /^https?:\/\//.test(configured)) return configured.replace(/\/+$/, "");
  const port = env.SVC_PUBLIC_API_PORT?.trim();
  return `${location.protocol}//${location.hostname}:${port && /^\d{1,5}$/.test(port) ? port : DEFAULT_PORT}`;
}

/** The command that installs the middleware package from this gateway (it is not on the npm registry). */
export const adaptersInstallCommand = (gateway: string) => `npm install ${gateway}/adapters.tgz`;
