import { describe, expect, it } from "vitest";
import { HitSender, SvcOptionsError, type SvcOptions } from "../src/index.ts";
import { svc as express } from "../src/express.ts";
import { withSvc as worker } from "../src/worker.ts";

const valid = { endpoint: "http://127.0.0.1:9/api/hit", domain: "example.com", flushOnExit: false };

describe("options", () => {
  it("fills the documented defaults", () => {
    expect(new HitSender(valid).options).toEqual({
      endpoint: "http://127.0.0.1:9/api/hit",
      domain: "example.com",
      humans: false,
      trustProxy: false,
      timeoutMs: 5000,
      keepQuery: false,
      onError: undefined,
      maxQueue: 1000,
      batchSize: 100,
      flushIntervalMs: 1000,
      flushOnExit: false,
    });
  });

  it.each([
    [{ ...valid, endpoint: undefined }, "endpoint is required"],
    [{ ...valid, endpoint: "" }, "endpoint is required"],
    [{ ...valid, endpoint: "/api/hit" }, "endpoint must be an absolute http(s) URL"],
    [{ ...valid, endpoint: "ftp://x/api/hit" }, "endpoint must use http or https"],
    [{ ...valid, domain: undefined }, "domain is required"],
    [{ ...valid, domain: "  " }, "domain is required"],
    [{ ...valid, domain: "https://example.com/" }, "domain must be a bare host name"],
    [{ ...valid, domain: "a".repeat(254) }, "at most 253 characters"],
    [{ ...valid, humans: "yes" }, "humans must be true or false"],
    [{ ...valid, keepQuery: 1 }, "keepQuery must be true or false"],
    [{ ...valid, trustProxy: -1 }, "trustProxy must be true, false or a number of proxies"],
    [{ ...valid, trustProxy: "loopback" }, "trustProxy must be true, false or a number of proxies"],
    [{ ...valid, timeoutMs: 0 }, "timeoutMs must be an integer from 1 to 120000"],
    [{ ...valid, timeoutMs: 1.5 }, "timeoutMs must be an integer from 1 to 120000"],
    [{ ...valid, batchSize: 101 }, "batchSize must be an integer from 1 to 100"],
    [{ ...valid, batchSize: 0 }, "batchSize must be an integer from 1 to 100"],
    [{ ...valid, maxQueue: 0 }, "maxQueue must be an integer from 1 to 1000000"],
    [{ ...valid, flushIntervalMs: -5 }, "flushIntervalMs must be an integer from 1 to 3600000"],
    [{ ...valid, onError: "console" }, "onError must be a function"],
    [{ ...valid, token: "svc_live_" + "x".repeat(43) }, "token must be the site's hit token"],
    [{ ...valid, token: "svc_hit_short" }, "token must be the site's hit token"],
    [null, "options must be an object"],
  ])("%j is refused: %s", (options, message) => {
    expect(() => new HitSender(options as unknown as SvcOptions)).toThrow(SvcOptionsError);
    expect(() => new HitSender(options as unknown as SvcOptions)).toThrow(message);
  });

  it("refuses bad options when the middleware is built, not on the first request", () => {
    expect(() => express({ ...valid, batchSize: 500 })).toThrow("batchSize must be an integer from 1 to 100");
    expect(() => worker({ fetch: async () => new Response() }, { ...valid, domain: "" })).toThrow("domain is required");
  });

  it("lets adapters share one sender", () => {
    const sender = new HitSender(valid);
    expect(express(sender).svc).toBe(sender);
    expect(worker({ fetch: async () => new Response() }, sender).svc()).toBe(sender);
  });
});
