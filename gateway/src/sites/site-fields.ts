// The rules for a site's fields, before anything is stored: the canonical domain, the name's length and the
// retention bounds. A value that breaks one is a StorageError the CLI and the sites API show as it is.
import { domainToASCII } from "node:url";
import { canonicalTimeZone } from "@svc/core";
import { StorageError } from "../storage/storage-error.ts";

// 395 days = 13 months: a full year plus the same month of the previous year, for year-over-year views.
export const DEFAULT_RETENTION_DAYS = 395;
// Bounds of the CHECK constraint in sql/001_init.sql (10 years).
export const MIN_RETENTION_DAYS = 1;
export const MAX_RETENTION_DAYS = 3660;
const MAX_NAME_LENGTH = 200;

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * The canonical form of a site's domain: what the tracker sends as `location.hostname`. Lowercase, without
 * scheme, credentials, port, path or trailing dot, IDN in punycode. `www.` is kept: www.example.com and
 * example.com are different hostnames and the tracker reports the one the visitor used.
 * Returns null when the input is not a hostname (IP literals in brackets, underscores, empty labels…).
 */
export function normaliseDomain(input: string): string | null {
  let host = input.trim();
  host = host.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "").replace(/^\/\//, "");
  host = host.split(/[/?#]/, 1)[0]!;
  const at = host.lastIndexOf("@");
  if (at >= 0) host = host.slice(at + 1);
  if (host.startsWith("[")) return null;
  host = host.replace(/:\d*$/, "");
  if (host.includes(":")) return null;
  if (host.endsWith(".")) host = host.slice(0, -1);
  // domainToASCII would percent-decode or map these (browser URL rules); a typed domain never has them.
  if (host === "" || /[\s%\\*]/.test(host)) return null;
  const ascii = domainToASCII(host).toLowerCase();
  if (ascii === "" || ascii.length > 253) return null;
  return ascii.split(".").every((label) => LABEL.test(label)) ? ascii : null;
}

/** Why `input` is not a hostname, in words a person can act on (for the message of a refused domain). */
export function domainProblem(input: string): string {
  const host = input.trim().replace(/^[a-z][a-z0-9+.-]*:\/\//i, "").split(/[/?#]/, 1)[0]!;
  if (host === "") return "enter the site's domain, e.g. example.com";
  if (/\s/.test(host)) return "a domain has no spaces";
  if (host.startsWith("[") || /^\d{1,3}(\.\d{1,3}){3}(:\d+)?$/.test(host)) return "use the site's domain name, not an IP address";
  if (host.includes("_")) return "underscores are not allowed in a domain (use a hyphen)";
  if (/\.\./.test(host) || host.startsWith(".")) return "a domain cannot have an empty part between dots";
  if (host.split(".").some((l) => l.length > 63)) return "each part between dots is at most 63 characters";
  if (host.split(".").some((l) => l.startsWith("-") || l.endsWith("-"))) return "a part between dots cannot start or end with a hyphen";
  return "use letters, digits, hyphens and dots only, as the address bar shows it (e.g. example.com)";
}

export function checkDomain(input: string): string {
  const domain = normaliseDomain(input);
  if (domain === null) throw new StorageError("invalid_domain", `not a valid domain: ${JSON.stringify(input)}: ${domainProblem(input)}`);
  return domain;
}

export function checkRetention(days: number): number {
  if (!Number.isInteger(days) || days < MIN_RETENTION_DAYS || days > MAX_RETENTION_DAYS) {
    throw new StorageError("invalid_retention", `retention must be a whole number of days from ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS}, got ${days}`);
  }
  return days;
}

export function checkName(name: string | null | undefined): string | null {
  if (name === null || name === undefined) return null;
  const trimmed = name.trim();
  if (trimmed.length > MAX_NAME_LENGTH) throw new StorageError("invalid_name", `name is longer than ${MAX_NAME_LENGTH} characters`);
  return trimmed === "" ? null : trimmed;
}

/** The stored spelling of an IANA time zone (core's canonicalTimeZone), or a StorageError naming what was given. */
export function checkTimeZone(zone: string): string {
  const canonical = canonicalTimeZone(zone);
  if (canonical === null) throw new StorageError("invalid_time_zone", `unknown time zone ${JSON.stringify(zone)}: use an IANA name such as Europe/Berlin, America/New_York or UTC`);
  return canonical;
}
