/** HTML for a page that installs svc.js the way the README tells site owners to: one deferred tag in the head. */

export interface FixturePageOptions {
  /** Absolute URL of svc.js: a test site's `/js/svc.js`, or the gateway's. */
  readonly scriptSrc: string;
  /** Attributes of the script tag, full names: `{ "data-domain": "example.com", "data-hash": "true" }`. */
  readonly attributes?: Readonly<Record<string, string>>;
  /** Markup placed in the head before the tag (an inline script that runs before the tracker boots). */
  readonly head?: string;
  readonly body?: string;
  readonly title?: string;
}

const escapeAttribute = (value: string): string =>
  value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

export function fixturePage(options: FixturePageOptions): string {
  const attributes = Object.entries(options.attributes ?? {})
    .map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`)
    .join("");
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    `<title>${options.title ?? "fixture"}</title>`,
    options.head ?? "",
    `<script defer${attributes} src="${escapeAttribute(options.scriptSrc)}"></script>`,
    "</head><body>",
    options.body ?? "",
    "</body></html>",
  ].join("\n");
}
