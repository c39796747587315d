// The one error a process's configuration reader throws (the gateway's and the MCP server's): every bad or
// missing value is its own line, so a user fixes them all in one go instead of one per restart.
export class ConfigInvalid extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n  - ${problems.join("\n  - ")}`);
    this.name = "ConfigInvalid";
  }
}
