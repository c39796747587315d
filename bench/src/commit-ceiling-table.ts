/** The table the commit ceiling (commit-ceiling-server.ts) commits its rows to: one per run's database, no index. */
export const COMMIT_CEILING_TABLE = "commit_ceiling_rows";
