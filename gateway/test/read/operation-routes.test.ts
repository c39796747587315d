// The binding rules of routes/operation-routes.ts, without a server: the router is refused while an operation
// has no handler, a key that names no operation is refused, and a site path must go through the site preamble.
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { OPERATIONS, type OperationKey, operationKey } from "../../src/api-schema/operations.ts";
import { OperationRoutes } from "../../src/routes/operation-routes.ts";
import { isSiteScoped } from "../../src/routes/site-scope.ts";

// Binding never calls these: building the router only checks the list.
const unused = (): never => {
  throw new Error("not called while binding");
};
const routes = () =>
  new OperationRoutes({
    auth: { authenticate: unused, authenticateAdmin: unused, authenticateSession: unused },
    pool: null as unknown as pg.Pool,
    clock: { now: () => 0 },
    flushRollups: unused,
  });

/** Binds every operation (site paths with `site`), leaving out `skip`. */
function bindAll(r: OperationRoutes, skip?: string): OperationRoutes {
  for (const op of OPERATIONS) {
    const key = operationKey(op) as OperationKey;
    if (key === skip) continue;
    if (isSiteScoped(op.path)) r.site(key as never, () => ({ status: 204 }));
    else r.on(key, () => ({ status: 204 }));
  }
  return r;
}

describe("OperationRoutes", () => {
  it("builds a router once every operation has a handler", () => {
    expect(() => bindAll(routes()).router()).not.toThrow();
  });

  it.each(OPERATIONS.map(operationKey))("refuses to build the router without a handler for %s", (key) => {
    expect(() => bindAll(routes(), key).router()).toThrow(`operations without a handler: ${key}`);
  });

  it("refuses a handler for a key that names no operation, and one bound twice", () => {
    expect(() => routes().on("GET /api/nothing" as OperationKey, () => ({ status: 204 }))).toThrow("no operation GET /api/nothing");
    expect(() => routes().on("GET /api/sites", () => ({ status: 204 })).on("GET /api/sites", () => ({ status: 204 }))).toThrow("bound twice");
  });

  it("refuses a site path bound without the site preamble, and a non-site path bound with it", () => {
    expect(() => routes().on("GET /api/sites/{id}/stats" as never, () => ({ status: 204 }))).toThrow("must be bound with site()");
    expect(() => routes().site("GET /api/sites" as never, () => ({ status: 204 }))).toThrow("must be bound with on()");
  });
});
