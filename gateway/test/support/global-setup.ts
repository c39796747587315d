// Once per `vitest run` of the gateway project: the PostgreSQL server the tests create their databases on.
// DATABASE_URL when set (CI, this machine); else one embedded server in a temp dir, stopped at the end.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startEmbeddedServer } from "../../src/storage/embedded-server.ts";

declare module "vitest" {
  export interface ProvidedContext {
    svcDatabaseServerUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const fromEnv = process.env.DATABASE_URL;
  if (fromEnv !== undefined && fromEnv !== "") {
    project.provide("svcDatabaseServerUrl", fromEnv);
    return async () => {};
  }
  const dataDir = await mkdtemp(join(tmpdir(), "svc-test-pg-"));
  const server = await startEmbeddedServer({ dataDir, log: () => {} });
  project.provide("svcDatabaseServerUrl", server.url);
  return async () => {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
}
