// Fake language-model servers for the insights tests: real node:http servers on 127.0.0.1, one per wire format,
// that record every request they receive and answer from a script (status, headers, delay, answer text).
import http from "node:http";
import type { AddressInfo } from "node:net";

export type WireFormat = "local" | "openai" | "anthropic" | "gemini";

export interface Recorded {
  readonly method: string;
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  /** The body exactly as received, and parsed. */
  readonly raw: string;
  readonly body: any;
  readonly at: number;
}

export interface Reply {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly delayMs?: number;
  /** The model's answer text, wrapped in the format's response JSON (2xx only). */
  readonly text?: string;
  /** A raw body instead (errors). */
  readonly body?: string;
}

/** The format's success response around `text`. */
const RESPONSE: Record<WireFormat, (text: string) => unknown> = {
  local: (text) => ({ model: "llama3.2", created_at: new Date().toISOString(), message: { role: "assistant", content: text }, done: true }),
  openai: (text) => ({ id: "chatcmpl-1", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }] }),
  anthropic: (text) => ({ id: "msg_1", type: "message", role: "assistant", content: [{ type: "text", text }], stop_reason: "end_turn" }),
  gemini: (text) => ({ candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason: "STOP" }] }),
};

/** The system and user message of a recorded request, read the way each format carries them. */
export function promptOf(format: WireFormat, body: any): { system: string; user: string; messages: number } {
  switch (format) {
    case "local":
    case "openai":
      return { system: body.messages[0].role === "system" ? body.messages[0].content : "", user: body.messages[1]?.content, messages: body.messages.length };
    case "anthropic":
      return { system: body.system, user: body.messages[0].content, messages: body.messages.length };
    case "gemini":
      return { system: body.systemInstruction.parts[0].text, user: body.contents[0].parts[0].text, messages: body.contents.length };
  }
}

export class FakeProvider {
  readonly requests: Recorded[] = [];
  /** Replies used in order; when empty, `fallback`. */
  script: Reply[] = [];
  fallback: Reply = { text: "- Human visitors held steady." };
  private readonly sockets = new Set<import("node:net").Socket>();

  private constructor(
    readonly format: WireFormat,
    private readonly server: http.Server,
  ) {
    server.on("connection", (s) => {
      this.sockets.add(s);
      s.on("close", () => this.sockets.delete(s));
    });
  }

  static async start(format: WireFormat): Promise<FakeProvider> {
    let fake: FakeProvider;
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        let body: unknown = null;
        try {
          body = JSON.parse(raw);
        } catch {}
        fake.requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, raw, body, at: Date.now() });
        const reply = fake.script.shift() ?? fake.fallback;
        const send = () => {
          if (res.destroyed) return;
          const status = reply.status ?? 200;
          const payload = reply.body ?? JSON.stringify(RESPONSE[format](reply.text ?? ""));
          res.writeHead(status, { "content-type": "application/json", ...reply.headers });
          res.end(payload);
        };
        if (reply.delayMs) setTimeout(send, reply.delayMs);
        else send();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    fake = new FakeProvider(format, server);
    return fake;
  }

  get base(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  reset(): void {
    this.requests.length = 0;
    this.script = [];
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
