// The history import (POST /api/sites/{id}/import): one NDJSON line's fields, the query and the report.
import { ACTORS } from "@svc/core";
import { Schema } from "effect";

const Text = (description: string) => Schema.optionalKey(Schema.NullOr(Schema.String).annotate({ description }));

/** One line of the NDJSON body (documentation: the import checks each line itself, import/import-line.ts). */
export const ImportLine = Schema.Struct({
  timestamp: Schema.String.annotate({ description: "ISO 8601 date and time; UTC when it has no offset. Only settled days: before today (before yesterday until 00:15 UTC), within the site's retention." }),
  name: Schema.String.annotate({ description: "`pageview` or a custom event name (at most 120 characters)." }),
  visitor: Text("Equal strings are one visitor within one UTC day of this import (hashed with a secret of the import; never linked across days or imports). Absent: a new visitor for this line."),
  hostname: Text("Default: the site's domain."),
  pathname: Text("Default `/`; a query's utm_* values count when no utm_* field is given."),
  referrer: Text("A URL or a host."),
  source: Text("Overrides the source derived from referrer and UTM (`Google`, `Newsletter`; `Direct / None` for none)."),
  utm_source: Text("As on a page URL."),
  utm_medium: Text("As on a page URL."),
  utm_campaign: Text("As on a page URL."),
  utm_content: Text("As on a page URL."),
  utm_term: Text("As on a page URL."),
  browser: Text("Browser name (Chrome, Safari…); default from user_agent."),
  browser_version: Text("Browser version, stored as major.minor (`131.0.6778.85` → `131.0`) like ingest's; default from user_agent when the line names no browser."),
  os: Text("OS name; default from user_agent."),
  os_version: Text("OS version, stored as major.minor (`10.15.7` → `10.15`); default from user_agent when the line names no OS."),
  device: Text("Desktop, Laptop (stored as desktop), Tablet, Mobile or Other; default from user_agent, else other."),
  country: Text("ISO 3166-1 alpha-2."),
  user_agent: Text("Used only for what the line does not give: actor, assistant, device, browser and its version, OS and its version."),
  props: Schema.optionalKey(Schema.NullOr(Schema.Record(Schema.String, Schema.String)).annotate({ description: "Custom properties (at most 30); e-mail-looking ones are dropped." })),
  actor: Schema.optionalKey(Schema.NullOr(Schema.Literals(ACTORS)).annotate({ description: "Default: as ingest derives it (user agent, assistant referrer or utm_source); without a user agent, human." })),
}).annotate({ identifier: "ImportLine", description: "One JSON object per line (NDJSON)." });

export const ImportQuery = Schema.Struct({
  dry_run: Schema.optionalKey(Schema.Literals(["true", "false"]).annotate({ description: "true: check every line and report, store nothing.", message: "must be true or false" })),
});

export const ImportReport = Schema.Struct({
  status: Schema.Literals(["imported", "duplicate", "dry_run", "empty"]).annotate({
    description: "imported: committed; duplicate: this very body was imported before (import_id), nothing changed; dry_run: checked only; empty: no line could be imported, nothing stored.",
  }),
  import_id: Schema.NullOr(Schema.Int),
  sha256: Schema.String.annotate({ description: "SHA-256 of the body (hex): the import's identity. The same bytes again are a duplicate." }),
  lines: Schema.Int.annotate({ description: "Lines read (blank lines included)." }),
  imported: Schema.Int,
  refused: Schema.Int,
  refused_lines: Schema.Array(Schema.Struct({ line: Schema.Int, reason: Schema.String })).annotate({ description: "The first 1,000 refused lines: line number (from 1) and why." }),
  refused_lines_omitted: Schema.Int,
  days: Schema.NullOr(Schema.Struct({ from: Schema.String, to: Schema.String })).annotate({ description: "The UTC days of the imported rows." }),
}).annotate({ identifier: "ImportReport" });
