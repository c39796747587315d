// The operator CLI: `npm run svc -- site add|list|rename …`. Uses the same database as the gateway
// (DATABASE_URL, else the embedded server under SVC_DATA_DIR, attaching to it when the gateway runs it).
// Exit codes: 0 done, 2 a mistake in the command or its input (one line on stderr), 1 anything else.
import { open } from "node:fs/promises";
import { parseArgs } from "node:util";
import { systemClock } from "@svc/core";
import { importHistory } from "./import/history-import.ts";
import { openDatabase, type Database } from "./storage/database.ts";
import { generateHitToken, hashHitToken } from "./sites/hit-token.ts";
import { DEFAULT_RETENTION_DAYS, MAX_RETENTION_DAYS, MIN_RETENTION_DAYS, checkTimeZone, normaliseDomain } from "./sites/site-fields.ts";
import { addSite, describeSite, findSiteByDomain, listSites, setHitTokenHash, updateSite, type SiteRecord } from "./storage/sites.ts";
import { isStorageError } from "./storage/storage-error.ts";

const HELP = `svc — operator commands

Usage:
  npm run svc -- site add <domain> [--retention DAYS] [--name NAME] [--time-zone ZONE] [--json]
  npm run svc -- site list [--json]
  npm run svc -- site rename <id> <domain> [--json]
  npm run svc -- site token <id> [--clear] [--json]
  npm run svc -- site time-zone <id> <zone> [--json]
  npm run svc -- import --site <domain> <file.ndjson> [--dry-run] [--json]
  npm run svc -- --help

  <domain>     the hostname the tracker reports (location.hostname): "https://Example.com/x" is stored
               as example.com; www.example.com is a different site from example.com
  --retention  days of raw rows and rollups to keep, ${MIN_RETENTION_DAYS}..${MAX_RETENTION_DAYS} (default ${DEFAULT_RETENTION_DAYS} = 13 months)
  --name       a display name
  --time-zone  the IANA time zone reports' days follow (default UTC), e.g. Europe/Berlin, Asia/Kolkata
  --clear      (site token) remove the hit token: /api/hit for the site needs none again
  --json       print JSON instead of text
  --site       (import) the site whose history the file holds
  --dry-run    (import) check every line and report; store nothing

  site token   makes a new hit token (replacing the old one) and prints it once: from then on /api/hit for
               that site needs Authorization: Bearer svc_hit_… (the middleware's \`token\` option)

  import       NDJSON history, one event per line, in one transaction: the same as
               POST /api/sites/{id}/import (gateway/README.md "History import"); the same file
               again is recognised (SHA-256) and changes nothing. Exit 2 when no line was imported.

Environment:
  DATABASE_URL   PostgreSQL to use; unset = the embedded PostgreSQL of the gateway
  SVC_DATA_DIR   where the embedded PostgreSQL keeps its data (default ./.svc-data)
`;

class UsageError extends Error {}

interface Parsed {
  positionals: string[];
  retention: string | undefined;
  name: string | undefined;
  timeZone: string | undefined;
  site: string | undefined;
  dryRun: boolean;
  json: boolean;
  clear: boolean;
  help: boolean;
}

function parse(argv: string[]): Parsed {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        retention: { type: "string" },
        name: { type: "string" },
        "time-zone": { type: "string" },
        site: { type: "string" },
        "dry-run": { type: "boolean", default: false },
        json: { type: "boolean", default: false },
        clear: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    });
    return { positionals, retention: values.retention, name: values.name, timeZone: values["time-zone"], site: values.site, dryRun: values["dry-run"] === true, json: values.json === true, clear: values.clear === true, help: values.help === true };
  } catch (error) {
    throw new UsageError((error as Error).message.split("\n")[0]!);
  }
}

function parseRetention(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw new UsageError(`--retention must be a whole number of days (${MIN_RETENTION_DAYS}..${MAX_RETENTION_DAYS}), got ${JSON.stringify(text)}`);
  return Number(text);
}

function parseId(text: string): number {
  if (!/^\d{1,10}$/.test(text) || Number(text) < 1) throw new UsageError(`site id must be a positive whole number, got ${JSON.stringify(text)}`);
  return Number(text);
}

// Checked before the database is opened: a typo should not wait for an embedded server to start.
function checkZone(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  try {
    return checkTimeZone(text);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function checkDomain(text: string): string {
  if (normaliseDomain(text) === null) throw new UsageError(`not a valid domain: ${JSON.stringify(text)}`);
  return text;
}

function table(sites: SiteRecord[]): string {
  const header = ["ID", "DOMAIN", "NAME", "RETENTION", "TIME ZONE", "HIT TOKEN", "CREATED"];
  const rows = sites.map((s) => [String(s.id), s.domain, s.name ?? "-", `${s.retention_days} days`, s.time_zone, s.hit_token_hash ? "yes" : "no", s.created_at.slice(0, 10)]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [header, ...rows].map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  ")).join("\n");
}

/** The file as a stream of chunks (opened first, so a missing file is a usage error, not a half-begun import). */
async function openNdjson(path: string): Promise<AsyncIterable<Buffer>> {
  const handle = await open(path, "r");
  return handle.createReadStream({ highWaterMark: 256 * 1024 });
}

async function withDatabase<T>(work: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase({
    url: process.env.DATABASE_URL || null,
    dataDir: process.env.SVC_DATA_DIR || "./.svc-data",
    // Only what helps the operator: the embedded server being started or joined.
    log: (line) => { if (line.includes("embedded")) process.stderr.write(`svc: ${line}\n`); },
    poolSize: 2,
  });
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

async function run(argv: string[]): Promise<void> {
  const args = parse(argv);
  const [group, command, ...rest] = args.positionals;
  if (args.help || group === undefined || group === "help") {
    process.stdout.write(HELP);
    return;
  }
  const print = (text: string, value: unknown): void => {
    process.stdout.write(args.json ? JSON.stringify(value, null, 2) + "\n" : text + "\n");
  };
  if (group === "import") {
    const files = [command, ...rest].filter((a): a is string => a !== undefined);
    if (args.site === undefined || files.length !== 1) throw new UsageError("usage: import --site <domain> <file.ndjson> [--dry-run]");
    const domain = checkDomain(args.site);
    const file = files[0]!;
    const report = await withDatabase(async (db) => {
      const site = await findSiteByDomain(db.pool, domain);
      if (site === null) throw new UsageError(`no site ${domain}`);
      let stream;
      try {
        stream = await openNdjson(file);
      } catch (error) {
        throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
      }
      return importHistory(db.pool, site, stream, { clock: systemClock, dryRun: args.dryRun });
    });
    const listed = report.refused_lines.slice(0, 20).map((r) => `  line ${r.line}: ${r.reason}`);
    const more = report.refused - listed.length;
    print(
      [
        `${report.status}: ${report.imported} of ${report.lines} lines${report.days ? ` (${report.days.from} … ${report.days.to})` : ""}, ${report.refused} refused` +
          (report.import_id === null ? "" : `, import ${report.import_id}`) + `, sha256 ${report.sha256}`,
        ...listed,
        ...(more > 0 ? [`  … and ${more} more (--json lists ${Math.min(report.refused, 1000)})`] : []),
      ].join("\n"),
      report,
    );
    if (report.status === "empty") process.exitCode = 2;
    return;
  }
  if (group !== "site") throw new UsageError(`unknown command ${JSON.stringify(group)} (try --help)`);

  switch (command) {
    case "add": {
      if (rest.length !== 1) throw new UsageError("usage: site add <domain> [--retention DAYS] [--name NAME]");
      const domain = checkDomain(rest[0]!);
      const retention = parseRetention(args.retention);
      const timeZone = checkZone(args.timeZone);
      const site = await withDatabase((db) =>
        addSite(db.pool, { domain, name: args.name ?? null, ...(retention === undefined ? {} : { retention_days: retention }), ...(timeZone === undefined ? {} : { time_zone: timeZone }) }),
      );
      print(`added site ${site.id}: ${site.domain} (retention ${site.retention_days} days, time zone ${site.time_zone})`, describeSite(site));
      return;
    }
    case "list": {
      if (rest.length !== 0) throw new UsageError("usage: site list [--json]");
      const sites = await withDatabase((db) => listSites(db.pool));
      print(sites.length === 0 ? "no sites yet; add one with: npm run svc -- site add <domain>" : table(sites), sites.map(describeSite));
      return;
    }
    case "rename": {
      if (rest.length !== 2) throw new UsageError("usage: site rename <id> <domain>");
      const id = parseId(rest[0]!);
      const domain = checkDomain(rest[1]!);
      const site = await withDatabase((db) => updateSite(db.pool, id, { domain }));
      print(`site ${site.id} is now ${site.domain}`, describeSite(site));
      return;
    }
    case "token": {
      if (rest.length !== 1) throw new UsageError("usage: site token <id> [--clear]");
      const id = parseId(rest[0]!);
      const token = args.clear ? null : generateHitToken();
      const found = await withDatabase((db) => setHitTokenHash(db.pool, id, token === null ? null : hashHitToken(token)));
      if (!found) throw new UsageError(`no site with id ${id}`);
      if (token === null) print(`site ${id}: hit token removed; /api/hit needs none`, { id, hit_token_set: false });
      else print(`site ${id}: new hit token (shown only now; the old one, if any, stops working at once):\n${token}`, { id, hit_token_set: true, hit_token: token });
      return;
    }
    case "time-zone": {
      if (rest.length !== 2) throw new UsageError("usage: site time-zone <id> <zone>");
      const id = parseId(rest[0]!);
      const timeZone = checkZone(rest[1]!)!;
      const site = await withDatabase((db) => updateSite(db.pool, id, { time_zone: timeZone }));
      print(`site ${site.id}: reports follow ${site.time_zone}`, describeSite(site));
      return;
    }
    default:
      throw new UsageError(`unknown site command ${JSON.stringify(command ?? "")}: use add, list, rename, token or time-zone (try --help)`);
  }
}

try {
  await run(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError || isStorageError(error)) {
    process.stderr.write(`svc: ${error.message}\n`);
    process.exitCode = 2;
  } else {
    const { code, syscall } = error as { code?: string; syscall?: string };
    const reach = code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "28P01" || code === "3D000" || (code === "ENOENT" && syscall === "connect");
    process.stderr.write(`svc: ${reach ? "cannot use the database: " : ""}${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}
