// The gateway's own settings: defaults, and one clear message per bad value, all reported together.
import { describe, expect, it } from "vitest";
import { ConfigInvalid, loadConfig } from "../src/config.ts";

function problems(env: Record<string, string>): readonly string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigInvalid) return error.problems;
    throw error;
  }
}

describe("gateway configuration", () => {
  it("has working defaults for a fresh machine", () => {
    expect(loadConfig({})).toMatchObject({
      port: 8080,
      host: "0.0.0.0",
      transport: "uws",
      databaseUrl: null,
      trustProxy: 0,
      mailboxSize: 4096,
      flushMs: 4,
      writerInFlight: 1,
      rollupFlushMs: 1000,
      actorIdleMs: 86_400_000,
      production: false,
    });
  });

  it.each([
    ["SVC_PORT", "abc", "an integer port 0..65535"],
    ["SVC_PORT", "70000", "an integer port 0..65535"],
    ["SVC_HTTP", "nginx", `"uws" or "node"`],
    ["DATABASE_URL", "mysql://localhost/x", "a postgres:// URL"],
    ["SVC_TRUST_PROXY", "yes", "false, true (= 1) or the number of trusted proxy hops 0..10"],
    ["SVC_TRUST_PROXY", "11", "false, true (= 1) or the number of trusted proxy hops 0..10"],
    ["SVC_LOG_LEVEL", "verbose", "debug, info, warn or error"],
    ["SVC_MAILBOX_SIZE", "2", "an integer 16..1000000"],
    ["SVC_FLUSH_MS", "-1", "an integer 0..1000 (milliseconds)"],
    ["SVC_WRITER_IN_FLIGHT", "0", "an integer 1..8"],
    ["SVC_ROLLUP_FLUSH_MS", "5", "an integer 10..60000 (milliseconds)"],
    ["SVC_ROLLUP_FLUSH_MS", "soon", "an integer 10..60000 (milliseconds)"],
    ["SVC_ACTOR_IDLE_MS", "59999", "an integer 60000..604800000 (milliseconds)"],
    ["SVC_ACTOR_IDLE_MS", "604800001", "an integer 60000..604800000 (milliseconds)"],
    ["SVC_ACTOR_IDLE_MS", "a day", "an integer 60000..604800000 (milliseconds)"],
  ])("%s=%s is refused: expected %s", (name, value, expected) => {
    expect(problems({ [name]: value })).toEqual([`${name}=${JSON.stringify(value)} is invalid: expected ${expected}`]);
  });

  it("reports every bad value at once", () => {
    expect(problems({ SVC_PORT: "x", SVC_HTTP: "y", SVC_FLUSH_MS: "z" })).toHaveLength(3);
  });

  it.each([
    ["false", 0],
    ["true", 1],
    ["2", 2],
  ])("SVC_TRUST_PROXY=%s trusts %i hops", (value, hops) => {
    expect(loadConfig({ SVC_TRUST_PROXY: value }).trustProxy).toBe(hops);
  });
});
