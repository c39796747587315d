// What the two ceiling servers share (ceiling-server.ts and commit-ceiling-server.ts): the 202 they answer, the
// line they print once listening, and the commit ceiling's table (kept here so the bench and its test import the
// name without starting a server).
import uWS from "uWebSockets.js";
import { EVENT_ACCEPTED_HEADERS } from "../../gateway/src/routes/ingest.ts";

/** The table the commit ceiling commits its rows to: one per run's database, no index. */
export const COMMIT_CEILING_TABLE = "commit_ceiling_rows";

/** The gateway's 202: Access-Control-Allow-Origin on /api/event (`cors`), nothing on /api/hit. */
export function answerAccepted(res: uWS.HttpResponse, cors: boolean): void {
  res.cork(() => {
    res.writeStatus("202 Accepted");
    if (cors) for (const k in EVENT_ACCEPTED_HEADERS) res.writeHeader(k, EVENT_ACCEPTED_HEADERS[k]!);
    res.end();
  });
}

/** Listens on a free port of 127.0.0.1 and prints it in the line the gateway logs, so one launcher reads all ports. */
export function listenOnFreePort(app: uWS.TemplatedApp, name: string): void {
  app.listen("127.0.0.1", 0, (socket) => {
    if (!socket) throw new Error(`the ${name} server could not listen`);
    console.log(JSON.stringify({ msg: "ceiling listening", port: uWS.us_socket_local_port(socket as unknown as uWS.us_socket) }));
  });
}
