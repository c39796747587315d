// The ceiling of `npm run bench -- --ceiling`: a bare uWebSockets.js app on the same stack as the gateway
// (127.0.0.1, port 0, its own process) that reads each request's body and answers 202 with the headers the
// gateway's 202 carries — Access-Control-Allow-Origin on /api/event, none on /api/hit — and nothing else: no parse, no
// row, no database. What the load driver gets from it is what this machine's HTTP stack allows; the gateway's
// rate over it, measured in the same run, is the figure ingest work is judged by.
import uWS from "uWebSockets.js";
import { EVENT_ACCEPTED_HEADERS } from "../../gateway/src/routes/ingest.ts";

const app = uWS.App();
app.any("/*", (res, req) => {
  const cors = req.getUrl() === "/api/event";
  let aborted = false;
  res.onAborted(() => {
    aborted = true;
  });
  res.onData((_chunk, isLast) => {
    if (!isLast || aborted) return;
    res.cork(() => {
      res.writeStatus("202 Accepted");
      if (cors) for (const k in EVENT_ACCEPTED_HEADERS) res.writeHeader(k, EVENT_ACCEPTED_HEADERS[k]!);
      res.end();
    });
  });
});
app.listen("127.0.0.1", 0, (socket) => {
  if (!socket) throw new Error("the ceiling server could not listen");
  // The same line the gateway logs, so one launcher reads both ports.
  console.log(JSON.stringify({ msg: "ceiling listening", port: uWS.us_socket_local_port(socket as unknown as uWS.us_socket) }));
});
process.on("SIGTERM", () => process.exit(0));
