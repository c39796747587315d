// GET /api/openapi.json: public, so tools and the MCP server can discover the API before holding a key.
import { buildOpenApiDocument } from "../api-schema/openapi.ts";
import gatewayPackage from "../../package.json" with { type: "json" };
import type { OperationRoutes } from "./operation-routes.ts";

export function openapiRoutes(routes: OperationRoutes): void {
  // Built once at boot (~tens of ms): the document depends only on the code.
  const body = JSON.stringify(buildOpenApiDocument(gatewayPackage.version));
  routes.on("GET /api/openapi.json", () => ({
    status: 200,
    headers: { "content-type": "application/json", "cache-control": "public, max-age=300", "access-control-allow-origin": "*" },
    body,
  }));
}
