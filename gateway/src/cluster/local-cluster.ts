// N gateways (SVC_CLUSTER) behind a real HAProxy on this machine: what `npm run cluster`, `npm run
// bench:cluster` and the cluster test start. Every port is picked free (never a fixed one). HAProxy routes
// by `?d=` with consistent hashing and checks /healthz every second, so a dead or paused gateway leaves the
// pool within about 3 s (fall 3); the same config is what docs/self-hosting.md and docker-compose use. Not
// quicker: on a busy box a gateway rebuilding a big day can miss a check or two, and every time HAProxy
// takes a gateway out and back its sites move twice.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { type GatewayProcess, launchGateway } from "../launch.ts";

export const HAPROXY_PATH = process.env.SVC_HAPROXY ?? "/usr/sbin/haproxy";

export interface ClusterMember {
  readonly name: string;
  readonly process: GatewayProcess;
}

export interface HaproxyBackend {
  readonly name: string;
  readonly address: string;
}

/**
 * The HAProxy configuration of a cluster (docker-compose.yml's haproxy.cfg is the same with container names).
 * - `balance url_param d` + `hash-type consistent`: a site's requests go to one gateway, and a gateway joining or
 *   leaving moves about 1/N of the sites.
 * - `retry-on conn-failure` only: a request that reached a gateway is never sent twice (a 202 may have been lost
 *   with the connection, the row not).
 * - HAProxy's own 503 (no gateway up) carries Retry-After and the CORS header, so the tracker can read and retry it.
 */
export function haproxyConfig(opts: { bind: string; backends: readonly HaproxyBackend[]; errorFile: string; dockerDns?: boolean }): string {
  return [
    "global",
    "  maxconn 4096",
    // In compose, gateways are found by name through Docker's DNS, and one not up yet does not stop HAProxy.
    ...(opts.dockerDns ? ["resolvers docker", "  nameserver dns 127.0.0.11:53", "  hold valid 5s"] : []),
    "defaults",
    "  mode http",
    "  timeout connect 2s",
    "  timeout client 60s",
    "  timeout server 60s",
    "  timeout http-keep-alive 60s",
    "  timeout check 2s",
    "  retries 3",
    "  retry-on conn-failure",
    "  option redispatch",
    "frontend svc",
    `  bind ${opts.bind}`,
    "  default_backend gateways",
    "backend gateways",
    "  balance url_param d",
    "  hash-type consistent",
    "  option httpchk",
    "  http-check send meth GET uri /healthz ver HTTP/1.1 hdr host svc",
    "  http-check expect status 200",
    "  http-response set-header x-svc-gateway %s",
    `  errorfile 503 ${opts.errorFile}`,
    `  default-server inter 1s fall 3 rise 2${opts.dockerDns ? " resolvers docker init-addr last,libc,none" : ""}`,
    ...opts.backends.map((b) => `  server ${b.name} ${b.address} check`),
    "",
  ].join("\n");
}

export const HAPROXY_503 = [
  "HTTP/1.1 503 Service Unavailable",
  "content-type: application/json",
  "retry-after: 1",
  "access-control-allow-origin: *",
  "cache-control: no-store",
  "connection: close",
  "",
  '{"error":"no gateway available; retry"}',
  "",
].join("\r\n");

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

export interface LocalCluster {
  readonly port: number;
  readonly base: string;
  readonly members: ClusterMember[];
  /** Starts one more gateway and reloads HAProxy with it. */
  add(): Promise<ClusterMember>;
  /** Removes a gateway from HAProxy, then stops it cleanly (SIGTERM). */
  remove(name: string): Promise<void>;
  /** HAProxy stopped and started again on the same port (connections in flight are cut). */
  restartHaproxy(): Promise<void>;
  stop(): Promise<void>;
}

export async function startLocalCluster(opts: {
  readonly gateways: number;
  readonly env: Record<string, string>;
  readonly port?: number;
  readonly onLine?: (name: string, line: string) => void;
}): Promise<LocalCluster> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "svc-haproxy-"));
  const errorFile = path.join(dir, "503.http");
  writeFileSync(errorFile, HAPROXY_503);
  const port = opts.port ?? (await freePort());
  const members: ClusterMember[] = [];
  let counter = 0;
  let haproxy: ChildProcess | null = null;

  const launch = async (): Promise<ClusterMember> => {
    const name = `gw${++counter}`;
    const process = await launchGateway(
      { SVC_CLUSTER: "true", SVC_GATEWAY_NAME: name, ...opts.env },
      { rebuild: counter === 1, ...(opts.onLine ? { onLine: (line: string) => opts.onLine!(name, line) } : {}) },
    );
    return { name, process };
  };

  const writeConfig = (): string => {
    const file = path.join(dir, "haproxy.cfg");
    writeFileSync(file, haproxyConfig({ bind: `127.0.0.1:${port}`, errorFile, backends: members.map((m) => ({ name: m.name, address: `127.0.0.1:${m.process.port}` })) }));
    return file;
  };

  /** Starts HAProxy on the config; with `previous`, a soft reload: the old process finishes its connections (-sf). */
  const startHaproxy = async (previous: ChildProcess | null): Promise<ChildProcess> => {
    const file = writeConfig();
    const args = ["-db", "-f", file, ...(previous?.pid !== undefined ? ["-sf", String(previous.pid)] : [])];
    const child = spawn(HAPROXY_PATH, args, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
    await waitForPort(port, child, () => stderr);
    // Until the health checks pass (rise 2 × 1 s) every server is assumed up; wait for them anyway.
    await new Promise((r) => setTimeout(r, 2200));
    return child;
  };

  for (let i = 0; i < opts.gateways; i++) members.push(await launch());
  haproxy = await startHaproxy(null);

  const cluster: LocalCluster = {
    port,
    base: `http://127.0.0.1:${port}`,
    members,
    async add() {
      const member = await launch();
      members.push(member);
      haproxy = await startHaproxy(haproxy);
      return member;
    },
    async remove(name) {
      const i = members.findIndex((m) => m.name === name);
      if (i < 0) throw new Error(`no gateway ${name}`);
      const [member] = members.splice(i, 1);
      haproxy = await startHaproxy(haproxy);
      member!.process.child.kill("SIGTERM");
      await member!.process.exited();
    },
    async restartHaproxy() {
      const old = haproxy;
      if (old) {
        old.kill("SIGKILL");
        await new Promise((r) => old.once("exit", r));
      }
      haproxy = await startHaproxy(null);
    },
    async stop() {
      haproxy?.kill("SIGTERM");
      for (const m of members) m.process.child.kill("SIGTERM");
      await Promise.all(members.map((m) => m.process.exited()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return cluster;
}

async function waitForPort(port: number, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`haproxy exited (${child.exitCode}): ${stderr()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`haproxy did not listen on ${port}: ${stderr()}`);
}
