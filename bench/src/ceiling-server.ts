// The ceiling of `npm run bench -- --ceiling`: a bare uWebSockets.js app on the same stack as the gateway
// (127.0.0.1, port 0, its own process) that reads each request's body and answers 202 with the headers the
// gateway's 202 carries — Access-Control-Allow-Origin on /api/event, none on /api/hit — and nothing else: no parse, no
// row, no database. What the load driver gets from it is what this machine's HTTP stack allows; the gateway's
// rate over it, measured in the same run, is the figure ingest work is judged by.
import uWS from "uWebSockets.js";
import { answerAccepted, listenOnFreePort } from "./ceiling-app.ts";

const app = uWS.App();
app.any("/*", (res, req) => {
  const cors = req.getUrl() === "/api/event";
  let aborted = false;
  res.onAborted(() => {
    aborted = true;
  });
  res.onData((_chunk, isLast) => {
    if (!isLast || aborted) return;
    answerAccepted(res, cors);
  });
});
listenOnFreePort(app, "ceiling");
process.on("SIGTERM", () => process.exit(0));
