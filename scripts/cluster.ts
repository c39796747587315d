// `npm run cluster`: three gateways (SVC_CLUSTER) behind HAProxy on this machine, one PostgreSQL — the setup of
// docs/self-hosting.md "Several gateways" without containers. HAProxy listens on SVC_PORT (8080); the gateways
// on free loopback ports. The database is DATABASE_URL, or the embedded server under SVC_DATA_DIR, which this
// launcher starts and owns (a gateway that dies must not take the others' database with it).
// SVC_GATEWAYS sets how many (default 3). Ctrl-C stops them all cleanly; HAProxy is Debian's (`SVC_HAPROXY`
// names another binary).
import { startLocalCluster } from "../gateway/src/cluster/local-cluster.ts";
import { openDatabase } from "../gateway/src/storage/database.ts";

const gateways = Number(process.env.SVC_GATEWAYS ?? "3");
if (!Number.isInteger(gateways) || gateways < 1 || gateways > 16) {
  console.error(`SVC_GATEWAYS=${JSON.stringify(process.env.SVC_GATEWAYS)} is invalid: expected an integer 1..16`);
  process.exit(2);
}
const port = Number(process.env.SVC_PORT ?? "8080");
const database = await openDatabase({
  url: process.env.DATABASE_URL || null,
  dataDir: process.env.SVC_DATA_DIR || "./.svc-data",
  log: (line) => console.log(line),
  waitForServer: true,
});
const cluster = await startLocalCluster({
  gateways,
  port,
  env: { DATABASE_URL: database.url },
  onLine: (name, line) => console.log(`${name} ${line}`),
});
console.log(`svc cluster: HAProxy on ${cluster.base} → ${cluster.members.map((m) => `${m.name} 127.0.0.1:${m.process.port}`).join(", ")}`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await cluster.stop();
  await database.close();
  process.exit(0);
};
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());
