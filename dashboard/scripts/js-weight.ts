// The JavaScript a page of the dashboard loads, measured from the build: the scripts the browser fetched
// (Performance resource entries), each read from build/client and gzipped at level 9, summed. The budget
// for the site view is 100 KB (issue 11).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import type { Page } from "playwright-core";
import { DASHBOARD_DIR } from "./launch.ts";

export const SITE_VIEW_JS_BUDGET_BYTES = 100 * 1024;

export interface JsWeight {
  readonly files: number;
  readonly rawBytes: number;
  readonly gzipBytes: number;
}

/** After the page has loaded: the weight of every script it fetched from this dashboard. */
export async function pageJsWeight(page: Page): Promise<JsWeight> {
  const paths = await page.evaluate(() =>
    performance
      .getEntriesByType("resource")
      .map((e) => new URL(e.name))
      .filter((u) => u.origin === location.origin && u.pathname.endsWith(".js"))
      .map((u) => u.pathname),
  );
  let rawBytes = 0;
  let gzipBytes = 0;
  for (const path of new Set(paths)) {
    const bytes = await readFile(join(DASHBOARD_DIR, "build", "client", path));
    rawBytes += bytes.length;
    gzipBytes += gzipSync(bytes, { level: 9 }).length;
  }
  return { files: new Set(paths).size, rawBytes, gzipBytes };
}
