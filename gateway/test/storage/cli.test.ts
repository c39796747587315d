import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findSiteById } from "../../src/storage/sites.ts";
import { runCli } from "../support/cli.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";

let db: TestDatabase;
let env: Record<string, string>;
beforeAll(async () => {
  db = await createTestDatabase();
  env = { DATABASE_URL: db.url };
});
afterAll(async () => {
  await db.drop();
});

function expectOneLineError(stderr: string): void {
  const lines = stderr.trim().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^svc: /);
  expect(stderr).not.toMatch(/\n\s+at /);
}

describe("operator CLI", () => {
  it("adds sites, lists them as a table and as JSON, and renames one", async () => {
    const added = await runCli(["site", "add", "HTTPS://Shop.Example.com/cart", "--retention", "90", "--name", "Shop"], env);
    expect(added).toMatchObject({ code: 0, stderr: "" });
    expect(added.stdout).toMatch(/^added site (\d+): shop\.example\.com \(retention 90 days, time zone UTC\)\n$/);
    const id = Number(/site (\d+)/.exec(added.stdout)![1]);

    const second = await runCli(["site", "add", "blog.example.com", "--json"], env);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ domain: "blog.example.com", retention_days: 395, name: null });

    const table = await runCli(["site", "list"], env);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID\s+DOMAIN\s+NAME\s+RETENTION\s+TIME ZONE\s+HIT TOKEN\s+CREATED$/);
    expect(lines[1]).toMatch(new RegExp(`^${id}\\s+shop\\.example\\.com\\s+Shop\\s+90 days\\s+UTC\\s+no\\s+\\d{4}-\\d{2}-\\d{2}$`));
    expect(lines[2]).toMatch(/blog\.example\.com\s+-\s+395 days/);
    // Aligned: every row starts its DOMAIN column at the same place.
    expect(new Set(lines.map((l) => l.search(/shop|blog|DOMAIN/))).size).toBe(1);

    const json = await runCli(["site", "list", "--json"], env);
    expect(JSON.parse(json.stdout).map((s: { domain: string }) => s.domain)).toEqual(["shop.example.com", "blog.example.com"]);

    const renamed = await runCli(["site", "rename", String(id), "store.example.com"], env);
    expect(renamed).toMatchObject({ code: 0, stdout: `site ${id} is now store.example.com\n` });
    expect(await findSiteById(db.pool, id)).toMatchObject({ domain: "store.example.com", retention_days: 90 });
    // Five CLI processes in a row; each tsx start takes 0.5–2 s on the shared 2-core machine.
  }, 60_000);

  it("sets a site's time zone on add and with site time-zone, in the list's spelling; an unknown zone is one line, exit 2", async () => {
    const added = await runCli(["site", "add", "zoned.example", "--time-zone", "asia/kolkata", "--json"], env);
    expect(added.code).toBe(0);
    const site = JSON.parse(added.stdout);
    expect(site.time_zone.toLowerCase()).toBe("asia/kolkata");
    const changed = await runCli(["site", "time-zone", String(site.id), "america/st_johns"], env);
    expect(changed).toMatchObject({ code: 0, stdout: `site ${site.id}: reports follow America/St_Johns\n` });
    expect(await findSiteById(db.pool, site.id)).toMatchObject({ time_zone: "America/St_Johns" });
    for (const args of [["site", "add", "nozone.example", "--time-zone", "Mars/Olympus"], ["site", "time-zone", String(site.id), "+05:30"]]) {
      const bad = await runCli(args, env);
      expect(bad.code).toBe(2);
      expectOneLineError(bad.stderr);
      expect(bad.stderr).toMatch(/unknown time zone/);
    }
  }, 60_000);

  it("site token makes a hit token shown once (only its hash is stored), and --clear removes it", async () => {
    const added = JSON.parse((await runCli(["site", "add", "tokened.example", "--json"], env)).stdout);
    expect(added).toMatchObject({ hit_token_set: false });
    expect(added).not.toHaveProperty("hit_token_hash");
    const made = await runCli(["site", "token", String(added.id), "--json"], env);
    expect(made.code).toBe(0);
    const { hit_token } = JSON.parse(made.stdout);
    expect(hit_token).toMatch(/^svc_hit_[A-Za-z0-9_-]{43}$/);
    const stored = await findSiteById(db.pool, added.id);
    expect(stored!.hit_token_hash!.equals(createHash("sha256").update(hit_token).digest())).toBe(true);
    const listed = await runCli(["site", "list", "--json"], env);
    expect(listed.stdout).not.toContain(hit_token);
    expect(JSON.parse(listed.stdout).find((s: { id: number }) => s.id === added.id)).toMatchObject({ hit_token_set: true });
    const cleared = await runCli(["site", "token", String(added.id), "--clear"], env);
    expect(cleared).toMatchObject({ code: 0, stdout: `site ${added.id}: hit token removed; /api/hit needs none\n` });
    expect((await findSiteById(db.pool, added.id))!.hit_token_hash).toBeNull();
    expect((await runCli(["site", "token", "987654"], env)).stderr).toMatch(/no site with id 987654/);
  }, 60_000);

  it.each([
    { args: ["site", "add", "not a domain"], message: /not a valid domain/ },
    { args: ["site", "add", "blog.example.com"], message: /domain blog\.example\.com is already registered/ },
    { args: ["site", "add", "ok.example", "--retention", "ten"], message: /--retention must be a whole number/ },
    { args: ["site", "add", "ok.example", "--retention", "0"], message: /retention must be a whole number of days from 1 to 3660, got 0/ },
    { args: ["site", "add", "ok.example", "--retention", "99999"], message: /retention must be/ },
    { args: ["site", "add"], message: /usage: site add/ },
    { args: ["site", "rename", "987654", "x.example"], message: /no site with id 987654/ },
    { args: ["site", "rename", "abc", "x.example"], message: /site id must be a positive whole number/ },
    { args: ["site", "rename", "1", "bad_domain"], message: /not a valid domain/ },
    { args: ["site", "remove", "1"], message: /unknown site command "remove"/ },
    { args: ["sites"], message: /unknown command "sites"/ },
    { args: ["site", "list", "--colour"], message: /Unknown option '--colour'/ },
  ])("exits 2 with one line for: $args", async ({ args, message }) => {
    const result = await runCli(args, env);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expectOneLineError(result.stderr);
    expect(result.stderr).toMatch(message);
  });

  it("prints help without touching the database", async () => {
    const result = await runCli(["--help"], { DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("site add <domain>");
    expect(result.stdout).toContain("SVC_DATA_DIR");
  });

  it("exits 1 with one line when the database cannot be reached", async () => {
    const result = await runCli(["site", "list"], { DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" });
    expect(result.code).toBe(1);
    expectOneLineError(result.stderr);
    expect(result.stderr).toMatch(/cannot use the database/);
  });
});
