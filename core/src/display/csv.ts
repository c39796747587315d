// CSV the product writes (dashboard exports) keeps the raw values a user may need, but a spreadsheet
// treats a cell starting with =, +, -, @, TAB or CR as a formula ("=HYPERLINK(…)" in a path runs when the
// file is opened). OWASP's advice: prefix such a cell with a single quote, which the spreadsheet shows as text.
import { withoutInvisible } from "./label.ts";

// Invisible characters (label.ts `withoutInvisible`) are removed too: a spreadsheet shows a tag-smuggled
// instruction to no one but passes it on to whatever assistant reads the file.
const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell: invisible characters removed, formula-guarded, then quoted when it holds a comma, a quote or a line break (RFC 4180). */
export function csvCell(value: string | number | null): string {
  if (value === null) return "";
  if (typeof value === "number") return String(value);
  const visible = withoutInvisible(value);
  const guarded = FORMULA_START.test(visible) ? `'${visible}` : visible;
  return /[",\r\n]/.test(guarded) ? `"${guarded.replaceAll('"', '""')}"` : guarded;
}

/** One CRLF-terminated record. */
export function csvRecord(cells: readonly (string | number | null)[]): string {
  return `${cells.map(csvCell).join(",")}\r\n`;
}
