// A real SMTP server on a random local port (npm smtp-server), for the tests that send mail: every message it
// accepts is parsed (mailparser) and kept. Nothing leaves the machine. STARTTLS is off (no certificate to
// trust here), AUTH optional: nodemailer then speaks plain SMTP to it, as to a relay on localhost.
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  readonly to: string;
  readonly mail: ParsedMail;
  readonly raw: string;
}

export interface TestSmtp {
  readonly url: string;
  readonly received: ReceivedMail[];
  /** The next mail to `to` (waits up to `timeoutMs`). */
  next(to: string, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export async function startSmtp(): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  const waiting: Array<() => void> = [];
  const server = new SMTPServer({
    disabledCommands: ["STARTTLS", "AUTH"],
    authOptional: true,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        void simpleParser(raw).then((mail) => {
          for (const rcpt of session.envelope.rcptTo) received.push({ to: rcpt.address, mail, raw });
          for (const wake of waiting.splice(0)) wake();
          callback();
        }, callback);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as { port: number }).port;
  const seen = new Map<string, number>();
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    async next(to, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const from = seen.get(to) ?? 0;
        const index = received.findIndex((m, i) => i >= from && m.to === to);
        if (index !== -1) {
          seen.set(to, index + 1);
          return received[index]!;
        }
        if (Date.now() > deadline) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          waiting.push(resolve);
          setTimeout(resolve, 100);
        });
      }
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
