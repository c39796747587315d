// A plain node:http client, so the test sets User-Agent, Referer and X-Forwarded-For exactly as a crawler would.
import { request as httpRequest } from "node:http";

export interface Answer {
  readonly status: number;
  readonly body: string;
  readonly ms: number;
}

export function get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: "GET", headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString("utf8"),
          ms: Number(process.hrtime.bigint() - started) / 1e6,
        }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
