// The gateway's own settings: defaults, and one clear message per bad value, all reported together.
import { describe, expect, it } from "vitest";
import { ConfigInvalid, loadConfig, redactUrlPasswords } from "../src/config.ts";
import { clientIp } from "../src/ingest/client-ip.ts";

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
      // The shipped placeholder secrets are in use: loopback only (see "safe defaults" below).
      host: "127.0.0.1",
      hostReason: "placeholder secret",
      transport: "uws",
      databaseUrl: null,
      trustProxy: { hops: 0, networks: null },
      allowedOrigins: [],
      liveStreamsPerCredential: 20,
      eventRatePerClient: 10,
      hitRatePerSite: 1000,
      mailboxSize: 4096,
      flushMs: 4,
      writerInFlight: 1,
      rollupFlushMs: 1000,
      laneIdleMs: 86_400_000,
      production: false,
    });
  });

  it.each([
    ["SVC_PORT", "abc", "an integer port 0..65535"],
    ["SVC_PORT", "70000", "an integer port 0..65535"],
    ["SVC_HTTP", "nginx", `"uws" or "node"`],
    ["DATABASE_URL", "mysql://localhost/x", "a postgres:// URL"],
    ["SVC_TRUST_PROXY", "yes", "false, true (= 1), the number of trusted proxy hops 0..10, or comma-separated proxy addresses/CIDRs (10.0.0.0/8,fd00::/8)"],
    ["SVC_TRUST_PROXY", "11", "false, true (= 1), the number of trusted proxy hops 0..10, or comma-separated proxy addresses/CIDRs (10.0.0.0/8,fd00::/8)"],
    ["SVC_TRUST_PROXY", "10.0.0.0/33", "false, true (= 1), the number of trusted proxy hops 0..10, or comma-separated proxy addresses/CIDRs (10.0.0.0/8,fd00::/8)"],
    ["SVC_TRUST_PROXY", "10.0.0.0/8,", "false, true (= 1), the number of trusted proxy hops 0..10, or comma-separated proxy addresses/CIDRs (10.0.0.0/8,fd00::/8)"],
    ["SVC_TRUST_PROXY", "fd00::/129", "false, true (= 1), the number of trusted proxy hops 0..10, or comma-separated proxy addresses/CIDRs (10.0.0.0/8,fd00::/8)"],
    ["SVC_ALLOWED_ORIGINS", "stats.example.com", "comma-separated origins such as https://stats.example.com (scheme, host and port only)"],
    ["SVC_ALLOWED_ORIGINS", "https://stats.example.com/path", "comma-separated origins such as https://stats.example.com (scheme, host and port only)"],
    ["SVC_LIVE_STREAMS_PER_CREDENTIAL", "0", "an integer 1..10000"],
    ["SVC_EVENT_RATE_PER_CLIENT", "-1", "an integer 0..1000000 (requests per second; 0 = unlimited)"],
    ["SVC_HIT_RATE_PER_SITE", "lots", "an integer 0..10000000 (hits per second; 0 = unlimited)"],
    ["SVC_LOG_LEVEL", "verbose", "debug, info, warn or error"],
    ["SVC_MAILBOX_SIZE", "2", "an integer 16..1000000"],
    ["SVC_FLUSH_MS", "-1", "an integer 0..1000 (milliseconds)"],
    ["SVC_WRITER_IN_FLIGHT", "0", "an integer 1..8"],
    ["SVC_ROLLUP_FLUSH_MS", "5", "an integer 10..60000 (milliseconds)"],
    ["SVC_ROLLUP_FLUSH_MS", "soon", "an integer 10..60000 (milliseconds)"],
    ["SVC_LLM_TIMEOUT_MS", "50", "an integer 100..600000 (milliseconds)"],
    ["SVC_INSIGHTS_EVERY_HOURS", "-1", "an integer 0..8784 (hours; 0 = only on request)"],
    ["SVC_INSIGHTS_EVERY_HOURS", "weekly", "an integer 0..8784 (hours; 0 = only on request)"],
    ["SVC_ANTHROPIC_BASE_URL", "api.anthropic.com", "an http(s) URL"],
    ["SVC_GEMINI_BASE_URL", "ftp://x", "an http(s) URL"],
    ["SVC_LANE_IDLE_MS", "59999", "an integer 60000..604800000 (milliseconds)"],
    ["SVC_LANE_IDLE_MS", "604800001", "an integer 60000..604800000 (milliseconds)"],
    ["SVC_LANE_IDLE_MS", "a day", "an integer 60000..604800000 (milliseconds)"],
    ["SVC_REPLAY_BATCH_ROWS", "99", "an integer 100..1000000 (rows)"],
    ["SVC_REPLAY_BATCH_ROWS", "all", "an integer 100..1000000 (rows)"],
    ["SVC_CLUSTER", "maybe", "true or false (on/off, 1/0)"],
    ["SVC_GATEWAY_NAME", "gw 1", "1..40 letters, digits, '.', '_' or '-'"],
    ["SVC_OWNER_TIMEOUT_MS", "999", "an integer 1000..60000 (milliseconds)"],
  ])("%s=%s is refused: expected %s", (name, value, expected) => {
    expect(problems({ [name]: value })).toEqual([`${name}=${JSON.stringify(value)} is invalid: expected ${expected}`]);
  });

  it("refuses more than one transaction in flight with SVC_CLUSTER (the owner session runs every commit)", () => {
    expect(problems({ SVC_CLUSTER: "true", SVC_WRITER_IN_FLIGHT: "2" })).toEqual([
      "SVC_WRITER_IN_FLIGHT=2 is invalid with SVC_CLUSTER: expected 1 (the owner session that holds the site locks runs every commit)",
    ]);
  });

  it("names a renamed variable that is still set instead of ignoring it", () => {
    expect(problems({ SVC_ACTOR_IDLE_MS: "60000" })).toEqual(["SVC_ACTOR_IDLE_MS was renamed SVC_LANE_IDLE_MS: set SVC_LANE_IDLE_MS instead"]);
  });

  it("reports every bad value at once", () => {
    expect(problems({ SVC_PORT: "x", SVC_HTTP: "y", SVC_FLUSH_MS: "z" })).toHaveLength(3);
  });

  it.each([
    ["false", 0],
    ["true", 1],
    ["2", 2],
  ])("SVC_TRUST_PROXY=%s trusts %i hops", (value, hops) => {
    expect(loadConfig({ SVC_TRUST_PROXY: value }).trustProxy).toMatchObject({ hops, networks: null });
  });

  it("SVC_TRUST_PROXY also takes addresses and CIDRs (v4 and v6): X-Forwarded-For is read only from a peer in them", () => {
    const trust = loadConfig({ SVC_TRUST_PROXY: " 10.0.0.0/8, 192.0.2.1 ,fd00::/8" }).trustProxy;
    expect(trust.hops).toBe(0);
    const cases: Array<[peer: string, xff: string | undefined, client: string | null]> = [
      ["10.1.2.3", "203.0.113.7", "203.0.113.7"], // a proxy in 10/8
      ["192.0.2.1", "203.0.113.7", "203.0.113.7"], // the single address
      ["::ffff:10.9.9.9", "203.0.113.7", "203.0.113.7"], // IPv4-mapped peer
      ["fd12::1", "2001:db8::5", "2001:db8::5"], // an IPv6 proxy
      ["10.1.2.3", "203.0.113.7, 10.5.5.5", "203.0.113.7"], // through two of our proxies: the rightmost untrusted entry
      ["198.51.100.1", "203.0.113.7", "198.51.100.1"], // a client reaching the port directly: its header is ignored
      ["192.0.2.2", "203.0.113.7", "192.0.2.2"], // next to the trusted address, not it
      ["10.1.2.3", undefined, "10.1.2.3"],
    ];
    for (const [peer, xff, client] of cases) expect(clientIp(peer, xff, trust), `${peer} ${xff}`).toBe(client);
    // The hop count trusts whoever reaches the port: the hole the networks close.
    expect(clientIp("198.51.100.1", "203.0.113.7", loadConfig({ SVC_TRUST_PROXY: "1" }).trustProxy)).toBe("203.0.113.7");
  });
});

describe("safe defaults", () => {
  const REAL = { SVC_ADMIN_PASSWORD: "a-real-password", SVC_JWT_SECRET: "x".repeat(40) };

  it.each([
    ["placeholders, SVC_HOST unset: loopback only", {}, "127.0.0.1", "placeholder secret"],
    ["placeholders, SVC_HOST=127.0.0.1 (explicit loopback is fine)", { SVC_HOST: "127.0.0.1" }, "127.0.0.1", "explicit"],
    ["placeholders, SVC_HOST=localhost", { SVC_HOST: "localhost" }, "localhost", "explicit"],
    ["real secrets, SVC_HOST unset: every interface", REAL, "0.0.0.0", "default"],
    ["real secrets, SVC_HOST=0.0.0.0", { ...REAL, SVC_HOST: "0.0.0.0" }, "0.0.0.0", "explicit"],
  ])("%s", (_name, env, host, reason) => {
    expect(loadConfig(env)).toMatchObject({ host, hostReason: reason });
  });

  it.each([
    [{ SVC_HOST: "0.0.0.0" }, "SVC_ADMIN_PASSWORD and SVC_JWT_SECRET are"],
    [{ SVC_HOST: "::", SVC_ADMIN_PASSWORD: "a-real-password" }, "SVC_JWT_SECRET is"],
    [{ SVC_HOST: "192.0.2.10", SVC_JWT_SECRET: "y".repeat(40) }, "SVC_ADMIN_PASSWORD is"],
  ])("refuses an explicit non-loopback SVC_HOST while a placeholder is in use: %o", (env, which) => {
    const found = problems(env);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(`exposes the gateway beyond this machine while ${which} the shipped placeholder`);
  });

  it("hands the SMTP URL's password to the redaction step as a secret of its own", () => {
    const config = loadConfig({ SVC_SMTP_URL: "smtps://mailer:p%40ss-word-7@smtp.example:465", SVC_MAIL_FROM: "a@b.example", SVC_PUBLIC_URL: "https://stats.example" });
    expect(config.secrets).toContain("p@ss-word-7");
  });

  it("never prints a password inside DATABASE_URL, even when the URL is refused", () => {
    const found = problems({ DATABASE_URL: "mysql://svc:hunter2-secret@db.internal:3306/svc" });
    expect(found).toEqual(['DATABASE_URL="mysql://svc:***@db.internal:3306/svc" is invalid: expected a postgres:// URL']);
    expect(found.join("\n")).not.toContain("hunter2");
    expect(redactUrlPasswords("connect ECONNREFUSED for postgres://u:p%40ss@h:5432/db and postgresql://x:y@z/w")).toBe(
      "connect ECONNREFUSED for postgres://u:***@h:5432/db and postgresql://x:***@z/w",
    );
  });
});
