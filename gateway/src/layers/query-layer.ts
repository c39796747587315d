// The query engine (query/engine.ts: one embedded DuckDB) and the background job writing settled days to
// Parquet (parquet/day-files.ts). The job's pass catches its own failures and tries again next minute, so it
// never crashes and never touches the ingest path; the engine closes with the layer's scope.
import path from "node:path";
import { Context, Effect, Layer } from "effect";
import { DayFiles } from "../parquet/day-files.ts";
import type { DuckDBInstance } from "@duckdb/node-api";
import { QueryEngine, openDuckDB } from "../query/engine.ts";
import { ClockService, ConfigService, DatabaseService, LogService, RollupsService } from "./services.ts";

export class QueryService extends Context.Service<QueryService, QueryEngine>()("svc/Query") {}

/**
 * The day files' writer's own DuckDB memory limit, apart from the engine's: sessionizing a 333,333-row day (10M
 * rows a month) ran within 160 MB once the files were no longer sorted by time (day-files.ts write); 192 MB
 * leaves room for busier days. Sorted by time it needed more than 224 MB, so the engine's 256 MB could not be
 * lowered without the writer running out of memory (README "Benchmarks").
 */
export const DAY_FILES_MEMORY_LIMIT = "192MB";

/** A minute between passes: a day settles 10 minutes after its end, so a file is at most ~11 minutes late. */
export const DAY_FILES_INTERVAL_MS = 60_000;

export const queryLayer = (dayFilesIntervalMs = DAY_FILES_INTERVAL_MS) =>
  Layer.effect(
    QueryService,
    Effect.gen(function* () {
      const config = yield* ConfigService;
      const { pool } = yield* DatabaseService;
      const clock = yield* ClockService;
      const log = yield* LogService;
      const rollups = yield* RollupsService;
      const dayFiles = new DayFiles(config.dataDir);
      const tempDir = path.join(config.dataDir, "query-tmp");
      const engine = yield* Effect.acquireRelease(
        Effect.tryPromise({ try: () => QueryEngine.open({ pool, now: clock.now, tempDir, dayFiles, flushRollups: () => rollups.flushBeforeRead(), admission: config.queryAdmission }), catch: (error) => error }),
        (engine) => Effect.sync(() => engine.close()),
      );
      // The pass writes with a DuckDB of its own, one thread (a background job leaves the other core to ingest),
      // closed after the pass (its spill files in a folder of their own): the engine's opens only when a query
      // needs it (~65 MB RSS).
      const writePass = async () => {
        const writer: { db: Promise<DuckDBInstance> | null } = { db: null };
        try {
          return await dayFiles.pass(pool, async () => (await (writer.db ??= openDuckDB(path.join(tempDir, "writer"), { threads: 1, memoryLimit: DAY_FILES_MEMORY_LIMIT }))).connect(), clock.now());
        } finally {
          await writer.db?.then((db) => db.closeSync(), () => undefined);
        }
      };
      const pass = Effect.gen(function* () {
        const result = yield* Effect.result(Effect.tryPromise(writePass));
        if (result._tag === "Failure") log.warn("parquet day files: pass failed; retrying next minute", { error: String(result.failure.cause ?? result.failure) });
        else if (result.success.written + result.success.removed > 0) log.info("parquet day files", { ...result.success });
        // Today's tables of sites nobody queried for ten minutes (or deleted ones) give their memory back.
        const idle = yield* Effect.result(Effect.tryPromise(() => engine.dropIdleToday()));
        if (idle._tag === "Failure") log.warn("query engine: dropping idle today tables failed; retrying next minute", { error: String(idle.failure.cause ?? idle.failure) });
        else if (idle.success.length > 0) log.info("query engine: idle today tables dropped", { sites: idle.success.join(",") });
      });
      yield* Effect.forkScoped(Effect.forever(Effect.andThen(Effect.sleep(dayFilesIntervalMs), pass)));
      return engine;
    }),
  );
