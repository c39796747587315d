// How dimension values read on screen when the value is a code: channels as words ("AI assistant"), device
// classes in plain words, where "other" also holds clients that are not browsers (crawlers, bots). Visitor-
// supplied values are left to displayLabel (safe-links.ts); the CSV export keeps the raw values.
const CHANNELS: Readonly<Record<string, string>> = {
  direct: "Direct",
  search: "Search engine",
  social: "Social network",
  ai_assistant: "AI assistant",
  email: "Email",
  paid: "Paid ads",
  referral: "Link on another site",
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
