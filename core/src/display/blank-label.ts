// What an empty stored value reads as, in every read: the rollup breakdowns, the query API (Plausible's labels),
// the dashboard's filters and the e-mail reports. One set of names, so a country with no value reads "(not set)"
// whichever path answered a view, and a click on it filters by the word it showed.

/** An empty source or referrer: the visit came with no referrer and no UTM source. */
export const DIRECT_LABEL = "Direct / None";
/** An empty value of any other dimension (an unknown country, browser, OS, a page with no path). */
export const NOT_SET_LABEL = "(not set)";

/** The label of an empty value of `dimension`, named by its stored column or its breakdown field. */
export function blankLabel(dimension: string): string {
  return dimension === "source" || dimension === "referrer" || dimension === "referrer_host" ? DIRECT_LABEL : NOT_SET_LABEL;
}
