// `npm run mcp` / `npx svc-mcp`: read the environment, then serve the eight tools over stdio until the client
// closes stdin (or a terminal sends a signal). Stdout carries the protocol only; every line for a person goes
// to stderr.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import * as Effect from "effect/Effect";
import { ConfigInvalid, loadConfig } from "./config.ts";
import { createServer } from "./server.ts";

let config;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigInvalid)) throw error;
  process.stderr.write(`svc-mcp: ${error.message}\n`);
  // 2: a usage error, as the gateway exits on a bad configuration.
  process.exit(2);
}
const { siteId, apiUrl } = config;
const server = createServer(config);

/** The session: connected on acquire, closed on release whatever ends it. */
const session = Effect.acquireRelease(
  Effect.promise(() => server.connect(new StdioServerTransport())),
  () => Effect.promise(() => server.close()),
);

/** Resolves when the client hangs up (stdin ends) or the process is asked to stop. */
const hangUp = Effect.callback<string>((resume) => {
  const done = (why: string) => () => resume(Effect.succeed(why));
  process.stdin.once("end", done("stdin closed"));
  process.once("SIGINT", done("SIGINT"));
  process.once("SIGTERM", done("SIGTERM"));
});

const program = Effect.scoped(
  session.pipe(
    Effect.andThen(() => Effect.sync(() => process.stderr.write(`svc-mcp: serving site ${JSON.stringify(siteId)} from ${apiUrl} over stdio\n`))),
    Effect.andThen(() => hangUp),
  ),
);

Effect.runPromise(program).then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`svc-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
