// A live-stream (SSE) client over a real socket for the tests: collects parsed events until closed.
import http from "node:http";
import { sseBlockSplitter } from "../../src/live/sse-blocks.ts";

export interface SseEvent {
  event: string;
  data: any;
  receivedAt: number;
}

/** Opens the stream over a real socket and collects parsed events until close() is called. */
export function subscribe(url: string, headers: Record<string, string>) {
  const events: SseEvent[] = [];
  let status = 0;
  let contentType = "";
  let req: http.ClientRequest;
  const opened = new Promise<void>((resolve, reject) => {
    req = http.get(url, { headers }, (res) => {
      status = res.statusCode ?? 0;
      contentType = String(res.headers["content-type"] ?? "");
      const split = sseBlockSplitter();
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        for (const block of split(chunk)) {
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) events.push({ event, data: JSON.parse(data), receivedAt: Date.now() });
        }
      });
      resolve();
    });
    req.on("error", reject);
  });
  return {
    opened,
    events,
    get status() {
      return status;
    },
    get contentType() {
      return contentType;
    },
    close: () => req.destroy(),
  };
}
