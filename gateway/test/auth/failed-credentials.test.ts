// Failed credential look-ups limited per client, over real HTTP and PostgreSQL: past 30 failures in a minute
// (random API keys or session tokens) the client gets 429 with Retry-After before any look-up, even with a
// valid key; other clients and requests without a credential are not affected; the window slides on the
// injected clock.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAILED_CREDENTIALS_PER_WINDOW } from "../../src/auth/failed-credentials.ts";
import { loadConfig } from "../../src/config.ts";
import { bearer, call, createApiKey, loginAsAdmin } from "../support/auth.ts";
import { type Harness, startHarness } from "../support/harness.ts";

let h: Harness;
let key: string;

beforeAll(async () => {
  // The harness turns the limit off (tests check 401s in bulk on a clock that stands still): on, at its default.
  h = await startHarness({ env: { SVC_TRUST_PROXY: "1", SVC_FAILED_CREDENTIALS_PER_CLIENT: String(FAILED_CREDENTIALS_PER_WINDOW) } });
  key = await createApiKey(h.base, (await loginAsAdmin(h.base)).token);
});
afterAll(async () => {
  await h?.close();
});

const me = (client: string, headers: Record<string, string>) => call(h.base, "GET", "/api/sites", { headers: { ...headers, "x-forwarded-for": client } });
const randomKey = (i: number) => `svc_live_${String(i).padStart(43, "x")}`;

describe("failed API-key and session look-ups per client", () => {
  it("answer 429 with Retry-After past 30 a minute, before any look-up; others unaffected; the window slides", async () => {
    expect(FAILED_CREDENTIALS_PER_WINDOW).toBe(30);
    expect(loadConfig({}).failedCredentialsPerMinute).toBe(30);
    const guesser = "203.0.113.7";
    for (let i = 0; i < FAILED_CREDENTIALS_PER_WINDOW; i += 10) {
      const replies = await Promise.all(
        Array.from({ length: 10 }, (_, j) => me(guesser, bearer(i + j < 20 ? randomKey(i + j) : `not-a-session-token-${i + j}`))),
      );
      for (const r of replies) expect(r.status).toBe(401);
    }
    const limited = await me(guesser, bearer(randomKey(99)));
    expect(limited.status).toBe(429);
    expect(limited.json).toEqual({ error: "too many failed credential checks from this client; retry later" });
    expect(limited.headers.get("retry-after")).toBe("60");
    // Even the right key: the client is refused before the look-up.
    expect((await me(guesser, bearer(key))).status).toBe(429);
    // Without a credential nothing is looked up: a plain 401, and it is not counted.
    expect((await me(guesser, {})).status).toBe(401);
    // Another client (an IPv6 /64 elsewhere) with the key is served.
    expect((await me("2001:db8:9::1", bearer(key))).status).toBe(200);

    h.clock.advance(60_001);
    expect((await me(guesser, bearer(key))).status).toBe(200);
  });
});
