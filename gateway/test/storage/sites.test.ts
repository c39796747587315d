import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { normaliseDomain } from "../../src/sites/site-fields.ts";
import { listenSiteChanges, type SiteChange } from "../../src/storage/site-changes.ts";
import { addSite, findSiteByDomain, findSiteById, listSites, updateSite } from "../../src/storage/sites.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

describe("normaliseDomain", () => {
  it.each([
    ["example.com", "example.com"],
    ["HTTPS://WWW.Example.com:8080/path?q=1#x", "www.example.com"],
    ["http://user:pass@shop.example.co.uk/", "shop.example.co.uk"],
    ["  example.com.  ", "example.com"],
    ["//cdn.example.com/lib.js", "cdn.example.com"],
    ["example.com:443", "example.com"],
    ["Bücher.example", "xn--bcher-kva.example"],
    ["https://日本語.jp/", "xn--wgv71a119e.jp"],
    ["xn--bcher-kva.example", "xn--bcher-kva.example"],
    ["localhost", "localhost"],
    ["a-b.example", "a-b.example"],
    ["example.com/../..%00", "example.com"],
  ])("%s → %s", (input, expected) => {
    expect(normaliseDomain(input)).toBe(expected);
  });

  it.each([
    "",
    "   ",
    "https://",
    "exa mple.com",
    "under_score.example",
    "-leading.example",
    "trailing-.example",
    "double..dot.example",
    "[::1]",
    "http://[2001:db8::1]:8080/",
    "example.com:8080:9090",
    `${"a".repeat(64)}.example`,
    `${"abcdefghi.".repeat(26)}com`,
    "*.example.com",
    "exa%41mple.com",
  ])("rejects %j", (input) => {
    expect(normaliseDomain(input)).toBeNull();
  });
});

describe("sites", () => {
  it("adds a site with defaults and finds it by id and by any spelling of its domain", async () => {
    const site = await addSite(db.pool, { domain: "https://Blog.Example.org/" });
    expect(site).toMatchObject({ domain: "blog.example.org", name: null, team_id: 1, retention_days: 395 });
    expect(site.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(await findSiteById(db.pool, site.id)).toEqual(site);
    expect(await findSiteByDomain(db.pool, "BLOG.example.org.")).toEqual(site);
    expect(await findSiteByDomain(db.pool, "nope.example.org")).toBeNull();
    expect(await findSiteByDomain(db.pool, "not a domain")).toBeNull();
    expect(await findSiteById(db.pool, 987_654)).toBeNull();
    expect(await findSiteById(db.pool, -1)).toBeNull();
  });

  it("stores name and retention, and lists sites by id", async () => {
    const site = await addSite(db.pool, { domain: "docs.example.org", name: "  Docs  ", retention_days: 30 });
    expect(site).toMatchObject({ name: "Docs", retention_days: 30 });
    const all = await listSites(db.pool);
    expect(all.map((s) => s.id)).toEqual([...all.map((s) => s.id)].sort((a, b) => a - b));
    expect(all.map((s) => s.domain)).toContain("docs.example.org");
  });

  it.each([
    [{ domain: "bad domain" }, "invalid_domain"],
    [{ domain: "ok1.example", retention_days: 0 }, "invalid_retention"],
    [{ domain: "ok2.example", retention_days: 3661 }, "invalid_retention"],
    [{ domain: "ok3.example", retention_days: 1.5 }, "invalid_retention"],
    [{ domain: "ok4.example", name: "x".repeat(201) }, "invalid_name"],
  ])("refuses %j with %s", async (input, kind) => {
    await expect(addSite(db.pool, input)).rejects.toMatchObject({ name: "StorageError", kind });
  });

  it("refuses a domain already taken, in any spelling", async () => {
    await addSite(db.pool, { domain: "taken.example" });
    await expect(addSite(db.pool, { domain: "HTTP://TAKEN.example:80/x" })).rejects.toMatchObject({ kind: "domain_taken", message: "domain taken.example is already registered" });
  });

  it("updates domain, name and retention; refuses unknown ids and taken domains", async () => {
    const site = await addSite(db.pool, { domain: "old.example" });
    const renamed = await updateSite(db.pool, site.id, { domain: "New.Example", name: "New", retention_days: 90 });
    expect(renamed).toMatchObject({ id: site.id, domain: "new.example", name: "New", retention_days: 90 });
    expect(await findSiteByDomain(db.pool, "old.example")).toBeNull();
    expect(await updateSite(db.pool, site.id, {})).toEqual(renamed);
    await expect(updateSite(db.pool, 987_654, { domain: "x.example" })).rejects.toMatchObject({ kind: "not_found" });
    await expect(updateSite(db.pool, 987_654, {})).rejects.toMatchObject({ kind: "not_found" });
    await expect(updateSite(db.pool, site.id, { domain: "taken.example" })).rejects.toMatchObject({ kind: "domain_taken" });
    await expect(updateSite(db.pool, site.id, { domain: "::" })).rejects.toMatchObject({ kind: "invalid_domain" });
  });
});

describe("listenSiteChanges", () => {
  function collector(): { changes: SiteChange[]; next: (count: number) => Promise<SiteChange[]> } {
    const changes: SiteChange[] = [];
    return {
      changes,
      next: async (count) => {
        const deadline = Date.now() + 5_000;
        while (changes.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        return changes.splice(0, count);
      },
    };
  }

  it("announces insert and rename from another connection (the CLI is another process)", async () => {
    const seen = collector();
    const listener = await listenSiteChanges(db.url, (c) => seen.changes.push(c));
    const other = new pg.Client({ connectionString: db.url });
    await other.connect();
    try {
      const inserted = await other.query("insert into sites (domain) values ('notify.example') returning id");
      const id = inserted.rows[0].id;
      await other.query("update sites set domain = 'renamed.example' where id = $1", [id]);
      expect(await seen.next(2)).toEqual([
        { op: "insert", id, old_domain: null, new_domain: "notify.example" },
        { op: "update", id, old_domain: "notify.example", new_domain: "renamed.example" },
      ]);
    } finally {
      await other.end();
      await listener.close();
    }
  });

  it("reconnects after losing its connection, reports resync, and keeps receiving", async () => {
    const seen = collector();
    const listener = await listenSiteChanges(db.pool, (c) => seen.changes.push(c));
    try {
      const killed = await db.pool.query("select pg_terminate_backend(pid) as ok from pg_stat_activity where datname = current_database() and query = 'listen svc_sites'");
      expect(killed.rows).toEqual([{ ok: true }]);
      expect(await seen.next(1)).toEqual([{ op: "resync" }]);
      const site = await addSite(db.pool, { domain: "after-reconnect.example" });
      expect(await seen.next(1)).toEqual([{ op: "insert", id: site.id, old_domain: null, new_domain: "after-reconnect.example" }]);
    } finally {
      await listener.close();
    }
  });

  it("stops delivering after close", async () => {
    const seen = collector();
    const listener = await listenSiteChanges(db.url, (c) => seen.changes.push(c));
    await listener.close();
    await addSite(db.pool, { domain: "after-close.example" });
    await new Promise((r) => setTimeout(r, 200));
    expect(seen.changes).toEqual([]);
  });
});
