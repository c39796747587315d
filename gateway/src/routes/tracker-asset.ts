// GET /js/svc.js: the built tracker, read once at boot, cacheable for 5 minutes (SPEC), with an
// ETag for cheap revalidation and a pre-compressed gzip body.
import { createHash } from "node:crypto";
import fs from "node:fs";
import zlib from "node:zlib";
import { ApiError } from "../errors.ts";
import type { HttpRequest, HttpResponse } from "../http/transport.ts";

export interface TrackerAsset {
  readonly available: boolean;
  serve(req: HttpRequest): HttpResponse;
}

export function loadTrackerAsset(file: string): TrackerAsset {
  let source: Buffer;
  try {
    source = fs.readFileSync(file);
  } catch {
    return {
      available: false,
      serve: () => {
        throw new ApiError("not_found", "tracker not built: run `npm run build:tracker`");
      },
    };
  }
  const gzip = zlib.gzipSync(source, { level: 9 });
  const etag = `"${createHash("sha256").update(source).digest("base64url").slice(0, 22)}"`;
  const common = {
    "content-type": "application/javascript; charset=utf-8",
    "cache-control": "public, max-age=300",
    etag,
    vary: "accept-encoding",
    "access-control-allow-origin": "*",
  };
  return {
    available: true,
    serve(req) {
      const inm = req.headers["if-none-match"];
      if (inm && inm.split(",").some((t) => t.trim().replace(/^W\//, "") === etag)) return { status: 304, headers: common };
      const acceptsGzip = /\bgzip\b/.test(req.headers["accept-encoding"] ?? "");
      return acceptsGzip
        ? { status: 200, headers: { ...common, "content-encoding": "gzip" }, body: gzip }
        : { status: 200, headers: common, body: source };
    },
  };
}
