// `npm start`: read the configuration, open (or start) the database, run the gateway until SIGTERM/SIGINT.
import { ConfigInvalid, loadConfig } from "./config.ts";
import { startGateway } from "./app.ts";
import { createLogger } from "./log.ts";
import { openDatabase } from "./storage/database.ts";

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
  const database = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir, log: (line) => log.info(line) });
  const gateway = await startGateway({ config, database, log });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal });
    try {
      await gateway.stop();
      await database.close();
      process.exit(0);
    } catch (error) {
      log.error("shutdown failed", { error: String(error) });
      process.exit(1);
    }
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

main().catch((error) => {
  process.stderr.write(`svc gateway: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
