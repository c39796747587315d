// Drives the ingest scenario against a running gateway at a fixed concurrency for a fixed time and
// counts the rows acknowledged (202) — shared by the ingest and live benchmarks.
import autocannon from "autocannon";
import type { ScenarioRequest } from "./scenario.ts";

export interface LoadResult {
  readonly accepted: number;
  readonly rejected: number;
  readonly errors: number;
  readonly requestsPerS: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export async function driveScenario(port: number, scenario: readonly ScenarioRequest[], duration: number, connections: number): Promise<LoadResult> {
  let next = 0;
  let accepted = 0;
  let rejected = 0;
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections,
    duration,
    method: "POST",
    requests: [
      {
        setupRequest: (req: any, context: any) => {
          const r = scenario[next++ % scenario.length]!;
          context.rows = r.rows;
          return { ...req, path: r.path, headers: r.headers, body: r.body };
        },
        onResponse: (status: number, _body: unknown, context: any) => {
          if (status === 202) accepted += context.rows;
          else rejected++;
        },
      },
    ],
  } as any);
  return {
    accepted,
    rejected,
    errors: rejected + result.errors + result.timeouts,
    requestsPerS: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
  };
}
