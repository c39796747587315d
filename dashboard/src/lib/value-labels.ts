// How dimension values read on screen when the value is a code (the rollups and POST /api/v2/query both
// answer core's codes: core/src/types.ts CHANNELS, the device classes): channels by the names Plausible
// shows ("Organic Search", "Referral"), so a Plausible user reads the same words; device classes capitalised,
// where "other" also holds clients that are not browsers (crawlers, bots). Visitor-supplied values are left to
// displayLabel (safe-links.ts); the CSV export keeps the raw values.
const CHANNELS: Readonly<Record<string, string>> = {
  direct: "Direct",
  search: "Organic Search",
  social: "Organic Social",
  // Plausible's own: no peer counts assistants apart.
  ai_assistant: "AI Assistant",
  email: "Email",
  // Every paid medium (cpc, display, affiliates…; core/src/traffic PAID_MEDIUM): Plausible splits them into
  // Paid Search, Paid Social and Display by the source, which core does not, so the word names them all.
  paid: "Paid",
  referral: "Referral",
};
const DEVICES: Readonly<Record<string, string>> = {
  desktop: "Desktop",
  mobile: "Mobile",
  tablet: "Tablet",
  other: "Other or not a browser",
};

/** The words for a channel or device code; null when the value is not one (shown as its label instead). */
export function codeLabel(field: string, value: string): string | null {
  if (field === "channel") return CHANNELS[value] ?? null;
  if (field === "device") return DEVICES[value] ?? null;
  return null;
}

/**
 * A browser, OS or device row counted only from hits (server fetches reported by the middleware: crawlers,
 * bots, agents) names a user-agent string's engine, not a browser a person used: the row says so.
 */
export const isServerFetchesOnly = (field: string, row: { visitors: number; pageviews?: number; events?: number; hits: number }) =>
  (field === "browser" || field === "os" || field === "device") && row.hits > 0 && row.visitors === 0 && (row.pageviews ?? 0) === 0 && (row.events ?? 0) === 0;
