// The gateway's URL as visitors' browsers and site owners' servers reach it, for the install snippets.
// The dashboard talks to the gateway through its own /api proxy, but ingest must go to the gateway
// directly (through the proxy every visitor would arrive from the dashboard's address). Set
// SVC_PUBLIC_API_URL when the gateway is published elsewhere; by default: this host, port 8080.
import { env } from "$env/dynamic/public";

export function publicGatewayUrl(location: URL): string {
  const configured = env.SVC_PUBLIC_API_URL?.trim();
  if (configured && /^https?:\/\//.test(configured)) return configured.replace(/\/+$/, "");
  return `${location.protocol}//${location.hostname}:8080`;
}
