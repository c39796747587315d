import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { EventRow } from "../../src/storage/rows.ts";
import { copyBatchMessage } from "../../src/writer/copy-batch.ts";
import { COPY_HEADER, COPY_TRAILER } from "../../src/writer/copy-binary.ts";
import { mergeRollups, readRepairMark, writeRollups } from "../../src/rollups/rollup-writes.ts";
import { commitRows } from "../../src/writer/commit-rows.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { eventRow, hitRow, rollupDelta, visitorHash } from "../support/sample-rows.ts";
import { HOUR_MS } from "@svc/core";

const NOW = Date.UTC(2026, 10, 21, 9, 0, 0);
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase({ nowMs: NOW });
});
afterAll(async () => {
  await db.drop();
});
beforeEach(async () => {
  await db.pool.query("truncate events, hits, rollup_hourly, rollup_daily");
  await db.pool.query("update rollup_repair set from_hour = null");
});

// Strings that COPY's text format had to escape or that look like its syntax, and those text cannot hold as they are.
const TRICKY_STRINGS: Array<[label: string, input: string, stored: string]> = [
  ["tab", "a\tb", "a\tb"],
  ["newline", "line1\nline2", "line1\nline2"],
  ["carriage return", "a\r\nb", "a\r\nb"],
  ["backslash", "C:\\path\\", "C:\\path\\"],
  ["literal \\N is text, not null", "\\N", "\\N"],
  ["bytea-looking text", "\\x41", "\\x41"],
  ["unicode", "ünïcödé 日本語 🚀", "ünïcödé 日本語 🚀"],
  ["empty", "", ""],
  ["quotes", `"double" 'single'`, `"double" 'single'`],
  ["NUL is dropped (PostgreSQL text cannot hold it)", "a\0b", "ab"],
  // Rows arrive in stored form from core's decoders; the encoder still never lets one such string fail a batch.
  ["a lone surrogate is stored as U+FFFD (jsonb refuses its \\ud800 escape)", "a\ud800b", "a\ufffdb"],
  ["a NUL never joins two surrogate halves", "\ud83d\0\ude00", "\ufffd\ufffd"],
];

async function readEvents(): Promise<Array<Record<string, unknown>>> {
  const result = await db.pool.query("select *, tableoid::regclass::text as partition from events order by ts");
  return result.rows;
}

function expectedEvent(row: EventRow): Record<string, unknown> {
  return { ...row, ts: new Date(row.ts) };
}

describe("commitRows", () => {
  it("round-trips every column of events and hits, nulls included, into the month's partition", async () => {
    const full = eventRow({ props: { plan: "pro", seats: 3, trial: false } });
    const sparse = eventRow({
      ts: full.ts + 1,
      hostname: null, referrer_host: null, source: null,
      utm_source: null, utm_medium: null, utm_campaign: null, utm_term: null, utm_content: null,
      country: null, browser: null, os: null, screen_width: null, ai_name: null, props: null,
      visitor_hash: visitorHash("v2"),
    });
    const hitFull = hitRow({ referrer_host: "chatgpt.com", source: "ChatGPT", channel: "ai", utm_source: "chatgpt.com", utm_medium: "referral", utm_campaign: "c", utm_term: "t", utm_content: "x", country: "US", browser: "Chrome", os: "macOS" });
    const hitSparse = hitRow({ ts: hitFull.ts + 1, status: 404, method: "HEAD" });
    await commitRows(db.pool, { events: [full, sparse], hits: [hitFull, hitSparse] });

    const events = await readEvents();
    expect(events.map(({ partition, ...row }) => row)).toEqual([expectedEvent(full), expectedEvent(sparse)]);
    expect(events.map((row) => row.partition)).toEqual(["events_2026_11", "events_2026_11"]);

    const hits = await db.pool.query("select *, tableoid::regclass::text as partition from hits order by ts");
    expect(hits.rows.map(({ partition, ...row }) => row)).toEqual([
      { ...hitFull, ts: new Date(hitFull.ts) },
      { ...hitSparse, ts: new Date(hitSparse.ts) },
    ]);
    expect(hits.rows[0].partition).toBe("hits_2026_11");
  });

  it.each(TRICKY_STRINGS)("stores %s exactly in text, nullable text and jsonb", async (_label, input, stored) => {
    const row = eventRow({ page: input, name: input, utm_term: input, props: { [`k${input}`]: input, n: 1.5, ok: true } });
    const hit = hitRow({ page: input, os: input });
    await commitRows(db.pool, { events: [row], hits: [hit] });
    await writeRollups(db.pool, [rollupDelta({ value: input })], null);
    const event = (await db.pool.query("select page, name, utm_term, props from events")).rows[0];
    expect(event).toEqual({ page: stored, name: stored, utm_term: stored, props: { [`k${stored}`]: stored, n: 1.5, ok: true } });
    const storedHit = (await db.pool.query("select page, os from hits")).rows[0];
    expect(storedHit).toEqual({ page: stored, os: stored });
    const rollup = (await db.pool.query("select value from rollup_hourly")).rows[0];
    expect(rollup).toEqual({ value: stored });
  });

  it("stores any 32 bytes of visitor_hash, including zero and 0xff bytes", async () => {
    const hashes = [Buffer.alloc(32, 0), Buffer.alloc(32, 0xff), visitorHash("x")];
    await commitRows(db.pool, { events: hashes.map((h, i) => eventRow({ ts: NOW + i, visitor_hash: h })), hits: [] });
    const rows = (await db.pool.query<{ visitor_hash: Buffer }>("select visitor_hash from events order by ts")).rows;
    expect(rows.map((r) => r.visitor_hash)).toEqual(hashes);
  });

  it("writes 20,000 rows of multi-byte text in one batch (one ~7 MB protocol message)", async () => {
    const events = Array.from({ length: 20_000 }, (_, i) => eventRow({ ts: NOW + i, page: `/p/${i}/${"ü".repeat(i % 50)}` }));
    const hits = Array.from({ length: 3 }, (_, i) => hitRow({ ts: NOW + i, page: `/h/${i}` }));
    await commitRows(db.pool, { events, hits });
    const result = await db.pool.query("select count(*)::int as n, count(distinct page)::int as pages, max(length(page))::int as longest from events");
    expect(result.rows[0]).toEqual({ n: 20_000, pages: 20_000, longest: "/p/19999/".length + 49 });
    expect((await db.pool.query("select count(*)::int as n from hits")).rows[0].n).toBe(3);
  });

  it("keeps the pool usable and the rows exact under concurrent batches", async () => {
    const batches = Array.from({ length: 30 }, (_, b) => ({ events: Array.from({ length: 40 }, (_, i) => eventRow({ ts: NOW + b * 100 + i, page: `/b${b}/${i}` })), hits: [hitRow({ ts: NOW + b, page: `/h${b}` })] }));
    await Promise.all(batches.map((batch) => commitRows(db.pool, batch)));
    const result = await db.pool.query("select (select count(*) from events)::int as events, (select count(distinct page) from events)::int as pages, (select count(*) from hits)::int as hits");
    expect(result.rows[0]).toEqual({ events: 1200, pages: 1200, hits: 30 });
  });

  it("leaves nothing behind when the hits COPY fails after the events COPY succeeded, and the pool stays usable", async () => {
    // Refusals the server makes on the data (class 22/23), standing for any the encoder cannot foresee.
    await db.pool.query("alter table hits add constraint refuse_hit check (method <> 'REFUSE')");
    await db.pool.query("alter table events add constraint refuse_event check (name <> 'refuse')");
    try {
      await expect(commitRows(db.pool, { events: [eventRow()], hits: [hitRow({ method: "REFUSE" })] })).rejects.toThrow(/refuse_hit/);
      // The first COPY fails: the data already sent for both COPYs is ignored by the server.
      await expect(commitRows(db.pool, { events: [eventRow({ name: "refuse" })], hits: [hitRow()] })).rejects.toThrow(/refuse_event/);
    } finally {
      await db.pool.query("alter table hits drop constraint refuse_hit");
      await db.pool.query("alter table events drop constraint refuse_event");
    }
    // Rows the encoder rejects never reach the database: a fractional integer, and integers their columns cannot hold.
    await expect(commitRows(db.pool, { events: [eventRow({ screen_width: 1.5 })], hits: [] })).rejects.toThrow(/not an integer/);
    await expect(commitRows(db.pool, { events: [eventRow({ site_id: 2 ** 31 })], hits: [hitRow()] })).rejects.toThrow(/out of range for type integer/);
    await expect(commitRows(db.pool, { events: [eventRow()], hits: [hitRow({ status: 70_000 })] })).rejects.toThrow(/out of range for type smallint/);
    const counts = await db.pool.query("select (select count(*) from events)::int as events, (select count(*) from hits)::int as hits");
    expect(counts.rows[0]).toEqual({ events: 0, hits: 0 });
    for (let i = 0; i < 12; i++) await commitRows(db.pool, { events: [eventRow({ ts: NOW + i })], hits: [hitRow({ ts: NOW + i })] });
    const after = await db.pool.query("select (select count(*) from events)::int as events, (select count(*) from hits)::int as hits");
    expect(after.rows[0]).toEqual({ events: 12, hits: 12 });
  });

  it("does nothing for an empty batch", async () => {
    await commitRows(db.pool, { events: [], hits: [] });
    const result = await db.pool.query("select count(*)::int as n from events");
    expect(result.rows[0].n).toBe(0);
  });
});

describe("copyBatchMessage", () => {
  it("frames a Query with both statements, then per table CopyData (header, tuples, trailer) and CopyDone, with byte lengths", () => {
    const message = copyBatchMessage([
      { statement: "copy a from stdin with (format binary)", rows: 1, encode: (out) => (out.fields(1), out.text("ü")) },
      { statement: "copy b from stdin with (format binary)", rows: 1, encode: (out) => (out.fields(1), out.text("x")) },
    ]);
    const sql = "copy a from stdin with (format binary); copy b from stdin with (format binary)";
    const frames: Array<[string, Buffer]> = [];
    for (let at = 0; at < message.length; ) {
      const type = String.fromCharCode(message[at]!);
      const length = message.readInt32BE(at + 1);
      frames.push([type, message.subarray(at + 5, at + 1 + length)]);
      at += 1 + length;
    }
    const tuple = (text: string) => Buffer.concat([Buffer.from([0, 1, 0, 0, 0, Buffer.byteLength(text)]), Buffer.from(text)]);
    const data = (text: string) => Buffer.concat([COPY_HEADER, tuple(text), COPY_TRAILER]);
    expect(frames).toEqual([["Q", Buffer.from(`${sql}\0`)], ["d", data("ü")], ["c", Buffer.alloc(0)], ["d", data("x")], ["c", Buffer.alloc(0)]]);
  });
});

describe("writeRollups", () => {
  it("merges deltas of one key, then adds them to what the rollups already hold", async () => {
    const h8 = Date.UTC(2026, 10, 21, 8);
    await writeRollups(
      db.pool,
      [
        rollupDelta({ hour: h8, pageviews: 1, events: 1, visitors_hour: 1, visitors_day: 1 }),
        rollupDelta({ hour: h8, pageviews: 2, events: 2, visitors_hour: 1, visitors_day: 0 }),
        rollupDelta({ hour: h8 + HOUR_MS, pageviews: 1, events: 1, visitors_hour: 1, visitors_day: 0 }),
        rollupDelta({ hour: h8, dim: "total", value: "", pageviews: 3, events: 3, hits: 0, visitors_hour: 2, visitors_day: 2 }),
        rollupDelta({ hour: h8, actor: "ai_crawler", dim: "status", value: "2xx", pageviews: 0, events: 0, hits: 4, visitors_hour: 1, visitors_day: 1 }),
      ],
      h8,
    );
    // A second flush on the same keys: the upsert adds.
    await writeRollups(db.pool, [rollupDelta({ hour: h8, pageviews: 5, events: 6, hits: 7, visitors_hour: 2, visitors_day: 3 })], h8);
    const hourly = await db.pool.query(
      "select extract(epoch from bucket)::bigint * 1000 as bucket, actor, dim, value, pageviews::int, events::int, hits::int, visitors::int from rollup_hourly order by bucket, actor, dim, value",
    );
    expect(hourly.rows.map((r) => ({ ...r, bucket: Number(r.bucket) }))).toEqual([
      { bucket: h8, actor: "ai_crawler", dim: "status", value: "2xx", pageviews: 0, events: 0, hits: 4, visitors: 1 },
      { bucket: h8, actor: "human", dim: "page", value: "/pricing", pageviews: 8, events: 9, hits: 7, visitors: 4 },
      { bucket: h8, actor: "human", dim: "total", value: "", pageviews: 3, events: 3, hits: 0, visitors: 2 },
      { bucket: h8 + HOUR_MS, actor: "human", dim: "page", value: "/pricing", pageviews: 1, events: 1, hits: 0, visitors: 1 },
    ]);
    const daily = await db.pool.query(
      "select bucket::text, actor, dim, value, pageviews::int, events::int, hits::int, visitors::int from rollup_daily order by actor, dim, value",
    );
    expect(daily.rows).toEqual([
      { bucket: "2026-11-21", actor: "ai_crawler", dim: "status", value: "2xx", pageviews: 0, events: 0, hits: 4, visitors: 1 },
      { bucket: "2026-11-21", actor: "human", dim: "page", value: "/pricing", pageviews: 9, events: 10, hits: 7, visitors: 4 },
      { bucket: "2026-11-21", actor: "human", dim: "total", value: "", pageviews: 3, events: 3, hits: 0, visitors: 2 },
    ]);
  });

  it("puts the 23:00 UTC hour in its own day, not the next", async () => {
    const lateHour = Date.UTC(2026, 10, 21, 23);
    await writeRollups(db.pool, [rollupDelta({ hour: lateHour }), rollupDelta({ hour: lateHour + HOUR_MS })], null);
    const daily = await db.pool.query("select bucket::text, pageviews::int from rollup_daily order by bucket");
    expect(daily.rows).toEqual([{ bucket: "2026-11-21", pageviews: 1 }, { bucket: "2026-11-22", pageviews: 1 }]);
  });

  it("concurrent batches touching the same keys in opposite orders neither deadlock nor lose counts", async () => {
    const keys = Array.from({ length: 50 }, (_, i) => rollupDelta({ value: `/k${i}` }));
    const flushes = Array.from({ length: 8 }, (_, b) => (b % 2 === 0 ? keys : [...keys].reverse()));
    await Promise.all(flushes.map((deltas) => writeRollups(db.pool, deltas, null)));
    const result = await db.pool.query("select count(*)::int as keys, sum(pageviews)::int as pageviews, min(pageviews)::int as low from rollup_hourly");
    expect(result.rows[0]).toEqual({ keys: 50, pageviews: 400, low: 8 });
  });

  it("writes the repair mark in the same transaction; a key the database refuses is left out and returned", async () => {
    const h8 = Date.UTC(2026, 10, 21, 8);
    expect(await writeRollups(db.pool, [rollupDelta({ hour: h8 })], h8)).toEqual([]);
    expect(await readRepairMark(db.pool)).toBe(h8);
    // A count the database refuses (bigint overflow): that delta alone is left out; the others and the mark are written.
    const overflow = rollupDelta({ hour: h8, pageviews: 2 ** 63 });
    const refused = await writeRollups(db.pool, [rollupDelta({ hour: h8, value: "/other" }), overflow, rollupDelta({ hour: h8, value: "/zz" })], null);
    expect(refused.map((r) => r.item)).toEqual([overflow]);
    expect((refused[0]!.error as { code?: string }).code).toBe("22003");
    expect(await readRepairMark(db.pool)).toBe(null);
    const rows = await db.pool.query("select value, pageviews::int from rollup_hourly order by value");
    expect(rows.rows).toEqual([{ value: "/other", pageviews: 1 }, { value: "/pricing", pageviews: 1 }, { value: "/zz", pageviews: 1 }]);
  });

  // Issue 10: values PostgreSQL stores alike made one upsert touch a row twice, and every flush failed after.
  it("sums values that store alike into one row: /p and /p\\u0000, \\ud800 and \\udc00", async () => {
    const h8 = Date.UTC(2026, 10, 21, 8);
    const values = ["/p", "/p\0", "/q\ud800", "/q\udc00", "/q\ufffd"];
    expect(await writeRollups(db.pool, values.map((value) => rollupDelta({ hour: h8, value })), null)).toEqual([]);
    const rows = await db.pool.query("select value, pageviews::int from rollup_hourly order by value");
    expect(rows.rows).toEqual([{ value: "/p", pageviews: 2 }, { value: "/q\ufffd", pageviews: 3 }]);
  });

  // sql/022: a flush upserts the hour's and the day's keys again every second, counts only. Those updates stay on
  // their page (HOT, pruned in place) instead of adding a row version and index entries elsewhere each time:
  // with full pages, 10 more flushes of these 1,500 keys grew rollup_daily from 18 to 182 pages, its primary key
  // from 11 to 21 and its (site, dim) index from 4 to 17; with half-empty pages 35 → 36 and the indexes unchanged.
  it("upserts the same keys flush after flush without growing the tables or their indexes", async () => {
    const h8 = Date.UTC(2026, 10, 21, 8);
    const deltas = Array.from({ length: 1500 }, (_, i) => rollupDelta({ hour: h8, value: `/page/${i}` }));
    const sizes = async () =>
      (await db.pool.query<{ name: string; pages: number }>(
        `select relname as name, (pg_relation_size(oid) / 8192)::int as pages from pg_class
          where relname in ('rollup_hourly', 'rollup_hourly_pkey', 'rollup_daily', 'rollup_daily_pkey', 'rollup_hourly_site_dim', 'rollup_daily_site_dim')
          order by relname`,
      )).rows;
    await writeRollups(db.pool, deltas, null);
    const first = await sizes();
    for (let flush = 0; flush < 10; flush++) await writeRollups(db.pool, deltas, null);
    const after = await sizes();
    for (const [i, table] of first.entries()) expect(after[i]!.pages, table.name).toBeLessThanOrEqual(Math.ceil(table.pages * 1.25) + 1);
    const sum = await db.pool.query("select sum(pageviews)::int as pageviews from rollup_hourly");
    expect(sum.rows[0].pageviews).toBe(1500 * 11);
  });

  it("leaves out a value too large for an index entry (SQLSTATE 54000) and writes the rest", async () => {
    const h8 = Date.UTC(2026, 10, 21, 8);
    // 2,000 distinct CJK characters: ~6 KB of UTF-8 that does not compress, over the btree limit of 2,704 bytes.
    const huge = "/" + Array.from({ length: 2000 }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7919) % 20000))).join("");
    const refused = await writeRollups(db.pool, [rollupDelta({ hour: h8, value: huge }), rollupDelta({ hour: h8, value: "/ok" })], null);
    expect(refused.map((r) => [r.item.value, (r.error as { code?: string }).code])).toEqual([[huge, "54000"]]);
    expect((await db.pool.query("select value from rollup_hourly")).rows).toEqual([{ value: "/ok" }]);
    expect((await db.pool.query("select value from rollup_daily")).rows).toEqual([{ value: "/ok" }]);
  });
});

describe("mergeRollups", () => {
  const day = Date.UTC(2026, 10, 21);
  it.each([
    {
      label: "same key summed, visitors_hour for hours",
      granularity: "hour" as const,
      deltas: [rollupDelta({ visitors_hour: 1, visitors_day: 1 }), rollupDelta({ visitors_hour: 1, visitors_day: 0 })],
      expected: [{ bucket: Date.UTC(2026, 10, 21, 8), pageviews: 2, visitors: 2 }],
    },
    {
      label: "two hours of one day become one daily key with visitors_day",
      granularity: "day" as const,
      deltas: [rollupDelta({ visitors_day: 1 }), rollupDelta({ hour: Date.UTC(2026, 10, 21, 9), visitors_day: 0 })],
      expected: [{ bucket: day, pageviews: 2, visitors: 1 }],
    },
    {
      label: "all-zero deltas are dropped",
      granularity: "hour" as const,
      deltas: [rollupDelta({ pageviews: 0, events: 0, hits: 0, visitors_hour: 0, visitors_day: 0 })],
      expected: [],
    },
  ])("$label", ({ granularity, deltas, expected }) => {
    const merged = mergeRollups(deltas, granularity).map((r) => ({ bucket: r.bucket, pageviews: r.pageviews, visitors: r.visitors }));
    expect(merged).toEqual(expected);
  });

  it("keys by the stored form of the value", () => {
    const merged = mergeRollups([rollupDelta({ value: "/p" }), rollupDelta({ value: "/p\0" }), rollupDelta({ value: "\ud800" }), rollupDelta({ value: "\udc00" })], "hour");
    expect(merged.map((r) => [r.value, r.pageviews])).toEqual([["/p", 2], ["\ufffd", 2]]);
  });

  it("sorts keys by site, bucket, actor, dim, value", () => {
    const merged = mergeRollups(
      [
        rollupDelta({ site_id: 2, value: "/a" }),
        rollupDelta({ site_id: 1, value: "/b" }),
        rollupDelta({ site_id: 1, actor: "bot", value: "/a" }),
        rollupDelta({ site_id: 1, value: "/a" }),
        rollupDelta({ site_id: 1, hour: Date.UTC(2026, 10, 21, 7), value: "/z" }),
      ],
      "hour",
    );
    expect(merged.map((r) => `${r.site_id} ${new Date(r.bucket).getUTCHours()} ${r.actor} ${r.value}`)).toEqual([
      "1 7 human /z",
      "1 8 bot /a",
      "1 8 human /a",
      "1 8 human /b",
      "2 8 human /a",
    ]);
  });
});
