// `npm start`: read the configuration, open (or start) the database, run the gateway until SIGTERM/SIGINT.
import { ConfigInvalid, loadConfig, redactUrlPasswords } from "./config.ts";
import { type Gateway, startGateway } from "./app.ts";
import { createLogger } from "./log.ts";
import { type Database, openDatabase } from "./storage/database.ts";

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigInvalid) {
      process.stderr.write(`svc gateway: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const log = createLogger(config.logLevel);
  // The handlers go in before anything starts: a SIGTERM that arrived between "gateway listening" and
  // their installation used to kill the process outright (seen in the durability test, 1 run in 5).
  // A signal during startup is honoured once the gateway is up.
  let running: { gateway: Gateway; database: Database } | null = null;
  let requested: string | null = null;
  const shutdown = async (signal: string) => {
    log.info("shutting down", { signal });
    try {
      await running!.gateway.stop();
      await running!.database.close();
      process.exit(0);
    } catch (error) {
      log.error("shutdown failed", { error: String(error) });
      process.exit(1);
    }
  };
  const onSignal = (signal: string) => {
    if (requested !== null) return;
    requested = signal;
    if (running) void shutdown(signal);
  };
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  process.on("SIGINT", () => onSignal("SIGINT"));

  const database = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir, log: (line) => log.info(line) });
  running = { gateway: await startGateway({ config, database, log }), database };
  if (requested !== null) await shutdown(requested);
}

main().catch((error) => {
  // redactUrlPasswords: a driver error may quote the connection string it was given.
  process.stderr.write(`svc gateway: failed to start: ${redactUrlPasswords(error instanceof Error ? error.message : String(error))}\n`);
  process.exit(1);
});
