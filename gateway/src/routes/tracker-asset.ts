// Files the gateway serves as they were built, read once at boot with an ETag for cheap revalidation:
// GET /js/svc.js, the tracker, cacheable for 5 minutes (SPEC) with a pre-compressed gzip body; and
// GET /adapters.tgz, the middleware package as `npm pack` wrote it (`npm run build:adapters`), so a site
// owner runs `npm install https://this-gateway/adapters.tgz` against a self-hosted gateway (the package is not
// on the npm registry).
import { createHash } from "node:crypto";
import fs from "node:fs";
import zlib from "node:zlib";
import { ApiError } from "../errors.ts";
import type { HttpRequest, HttpResponse } from "../http/transport.ts";

export interface TrackerAsset {
  readonly available: boolean;
  serve(req: HttpRequest): HttpResponse;
}

export const loadTrackerAsset = (file: string): TrackerAsset =>
  loadAsset(file, { contentType: "application/javascript; charset=utf-8", missing: "tracker not built: run `npm run build:tracker`", gzip: true });

export const loadAdaptersPackage = (file: string): TrackerAsset =>
  loadAsset(file, { contentType: "application/gzip", missing: "middleware package not built: run `npm run build:adapters`", gzip: false });

function loadAsset(file: string, kind: { contentType: string; missing: string; gzip: boolean }): TrackerAsset {
  let source: Buffer;
  try {
    source = fs.readFileSync(file);
  } catch {
    return {
      available: false,
      serve: () => {
        throw new ApiError("not_found", kind.missing);
      },
    };
  }
  const gzip = kind.gzip ? zlib.gzipSync(source, { level: 9 }) : null;
  const etag = `"${createHash("sha256").update(source).digest("base64url").slice(0, 22)}"`;
  const common = {
    "content-type": kind.contentType,
    "cache-control": "public, max-age=300",
    etag,
    ...(gzip ? { vary: "accept-encoding" } : {}),
    "access-control-allow-origin": "*",
  };
  return {
    available: true,
    serve(req) {
      const inm = req.headers["if-none-match"];
      if (inm && inm.split(",").some((t) => t.trim().replace(/^W\//, "") === etag)) return { status: 304, headers: common };
      const acceptsGzip = gzip !== null && /\bgzip\b/.test(req.headers["accept-encoding"] ?? "");
      return acceptsGzip
        ? { status: 200, headers: { ...common, "content-encoding": "gzip" }, body: gzip }
        : { status: 200, headers: common, body: source };
    },
  };
}
