// A CSV opened by a real spreadsheet: Debian's LibreOffice Calc, headless (`soffice`, package
// libreoffice-calc-nogui, installed by .ci/run). The CSV is imported as a person importing it would see it —
// comma-separated, UTF-8, formulas evaluated (the import dialog's "Evaluate formulas", on by default) — and saved
// as flat OpenDocument XML (.fods), whose cells say whether Calc made a formula of them (`table:formula`) and
// what text they show.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface SheetCell {
  /** The formula Calc made of the cell (`of:=…`), or null for a value. */
  readonly formula: string | null;
  /** What the cell shows; paragraphs joined by a line feed. */
  readonly text: string;
}

// CSV import options, by position: separator 44 (,), text delimiter 34 ("), charset 76 (UTF-8), first line 1,
// column formats (standard), language 0 (the system's), quoted fields as text false, detect special numbers true,
// three export-only options, sheet -1, evaluate formulas true: the settings most likely to run a formula.
const CSV_IMPORT = "CSV:44,34,76,1,,0,false,true,false,false,false,-1,true";

const ENTITIES: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
const unescape = (xml: string) =>
  xml.replace(/&(#x?[0-9a-fA-F]+|\w+);/g, (_, e: string) => (e.startsWith("#x") ? String.fromCodePoint(parseInt(e.slice(2), 16)) : e.startsWith("#") ? String.fromCodePoint(Number(e.slice(1))) : (ENTITIES[e] ?? `&${e};`)));

/** The text of a cell's content: <text:p> paragraphs, with tabs, runs of spaces and line breaks spelled out. */
function cellText(content: string): string {
  const paragraphs = [...content.matchAll(/<text:p\b[^>]*?(?:\/>|>([\s\S]*?)<\/text:p>)/g)].map((m) => m[1] ?? "");
  return paragraphs
    .map((p) =>
      unescape(
        p
          .replace(/<text:tab\/>/g, "\t")
          .replace(/<text:line-break\/>/g, "\n")
          .replace(/<text:s(?: text:c="(\d+)")?\/>/g, (_, n?: string) => " ".repeat(Number(n ?? 1)))
          .replace(/<[^>]+>/g, ""),
      ),
    )
    .join("\n");
}

/** The rows of the first sheet Calc makes of `csv`, each the cells it holds (empty trailing cells left out). */
export async function openInCalc(csv: Uint8Array): Promise<SheetCell[][]> {
  const dir = await mkdtemp(join(tmpdir(), "svc-calc-"));
  try {
    await writeFile(join(dir, "export.csv"), csv);
    // A profile of its own: two runs at once (or a person's open LibreOffice) would otherwise share one and the second would exit at once.
    await run("soffice", [`-env:UserInstallation=file://${join(dir, "profile")}`, "--headless", `--infilter=${CSV_IMPORT}`, "--convert-to", "fods", "--outdir", dir, join(dir, "export.csv")], { timeout: 60_000 });
    const xml = await readFile(join(dir, "export.fods"), "utf8");
    const table = xml.slice(xml.indexOf("<table:table "), xml.indexOf("</table:table>"));
    return [...table.matchAll(/<table:table-row\b[^>]*>([\s\S]*?)<\/table:table-row>/g)].map((row) =>
      [...row[1]!.matchAll(/<table:table-cell\b([^>]*?)(?:\/>|>([\s\S]*?)<\/table:table-cell>)/g)]
        .filter((cell) => cell[2] !== undefined)
        .map((cell) => ({ formula: /table:formula="([^"]*)"/.exec(cell[1]!)?.[1] ?? null, text: cellText(cell[2]!) })),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
