// Drives the ingest scenario against a running gateway at a fixed concurrency for a fixed time and
// counts the rows acknowledged (202) — shared by the ingest and live benchmarks.
//
// A minimal HTTP/1.1 keep-alive client on raw sockets: every request of the scenario is serialised once,
// each connection sends one, reads its response (status line, Content-Length or chunked body), sends the
// next. Why not autocannon: on this 2-core box the load generator shares the CPU with the gateway and
// PostgreSQL, and autocannon took ~50 % of a core at 22,000 requests/s; this client does the same work
// for about half that, which the system under test gets back.
import net from "node:net";
import type { ScenarioRequest } from "./scenario.ts";

export interface LoadResult {
  readonly accepted: number;
  readonly rejected: number;
  readonly errors: number;
  readonly requestsPerS: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

const CRLF2 = Buffer.from("\r\n\r\n");
const CONTENT_LENGTH = /\r\ncontent-length:\s*(\d+)/i;
const CHUNKED = /\r\ntransfer-encoding:\s*chunked/i;
const LAST_CHUNK = Buffer.from("0\r\n\r\n");

function serialise(port: number, r: ScenarioRequest): Buffer {
  const body = Buffer.from(r.body);
  let head = `POST ${r.path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`;
  for (const [k, v] of Object.entries(r.headers)) head += `${k}: ${v}\r\n`;
  head += `Content-Length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, "latin1"), body]);
}

/**
 * The end of the first complete response in `data` and its status, or null while incomplete. Only what
 * the gateway sends is handled: a Content-Length body, or a chunked one.
 */
export function completeResponse(data: Buffer): { status: number; end: number } | null {
  const headEnd = data.indexOf(CRLF2);
  if (headEnd < 0) return null;
  const head = data.toString("latin1", 0, headEnd);
  const status = Number(head.slice(9, 12));
  const length = CONTENT_LENGTH.exec(head);
  if (length) {
    const end = headEnd + 4 + Number(length[1]);
    return data.length >= end ? { status, end } : null;
  }
  if (CHUNKED.test(head)) {
    const last = data.indexOf(LAST_CHUNK, headEnd + 4);
    return last < 0 ? null : { status, end: last + LAST_CHUNK.length };
  }
  return { status, end: headEnd + 4 };
}

/**
 * `requestsPerS` paces the requests (open loop, all connections together) instead of sending each as soon as
 * the previous answer came: at one fixed rate two builds do the same work per second, so their CPU per event
 * compares without the throughput of a loaded box in it (`npm run bench -- --rate N`).
 */
export async function driveScenario(port: number, scenario: readonly ScenarioRequest[], duration: number, connections: number, requestsPerS?: number): Promise<LoadResult> {
  const requests = scenario.map((r) => ({ bytes: serialise(port, r), rows: r.rows }));
  let next = 0;
  let accepted = 0;
  let rejected = 0;
  let errors = 0;
  let completed = 0;
  let latencies = new Float64Array(1 << 20);
  const record = (ms: number) => {
    if (completed === latencies.length) {
      const grown = new Float64Array(latencies.length * 2);
      grown.set(latencies);
      latencies = grown;
    }
    latencies[completed++] = ms;
  };
  const started = performance.now();
  let paced = 0;
  const deadline = started + duration * 1000;

  const connection = () =>
    new Promise<void>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.setNoDelay(true);
      let buffered: Buffer = Buffer.alloc(0);
      let current: { rows: number; sentAt: number } | null = null;
      const send = (): void => {
        const now = performance.now();
        if (now >= deadline) {
          socket.end();
          return;
        }
        if (requestsPerS !== undefined) {
          const due = started + (1000 * paced) / requestsPerS;
          if (due > now) {
            setTimeout(send, due - now);
            return;
          }
          paced++;
        }
        const r = requests[next++ % requests.length]!;
        current = { rows: r.rows, sentAt: performance.now() };
        socket.write(r.bytes);
      };
      socket.on("connect", send);
      socket.on("data", (chunk: Buffer) => {
        buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
        const done = completeResponse(buffered);
        if (done === null || current === null) return;
        buffered = buffered.subarray(done.end);
        record(performance.now() - current.sentAt);
        if (done.status === 202) accepted += current.rows;
        else rejected++;
        current = null;
        send();
      });
      socket.on("error", () => {
        errors++;
      });
      socket.on("close", () => {
        // A connection the server closed before the deadline is an error; open a new one.
        if (current !== null) errors++;
        if (performance.now() < deadline) void connection().then(resolve);
        else resolve();
      });
    });

  await Promise.all(Array.from({ length: connections }, connection));
  const elapsedS = (performance.now() - started) / 1000;
  const sorted = latencies.subarray(0, completed).sort();
  const quantile = (q: number) => (completed === 0 ? 0 : Math.round(sorted[Math.min(completed - 1, Math.floor(q * completed))]! * 10) / 10);
  return {
    accepted,
    rejected,
    errors: rejected + errors,
    requestsPerS: Math.round(completed / elapsedS),
    p50Ms: quantile(0.5),
    p99Ms: quantile(0.99),
  };
}
