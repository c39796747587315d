// k6 version of the ingest scenario (the Node runner `npm run bench` executes the same one here).
//   npm run bench -- --k6-scenario bench/k6/scenario.json
//   npm run svc -- site add bench.example && npm start   # in another terminal
//   k6 run -e BASE=http://127.0.0.1:8080 -e VUS=64 -e DURATION=60s bench/k6/ingest.js
import http from "k6/http";
import { check } from "k6";
import { Counter } from "k6/metrics";

const scenario = JSON.parse(open("./scenario.json"));
const rowsAccepted = new Counter("rows_accepted");

export const options = {
  vus: Number(__ENV.VUS || 64),
  duration: __ENV.DURATION || "60s",
  thresholds: { http_req_duration: ["p(99)<25"], http_req_failed: ["rate<0.001"] },
};

export default function () {
  const r = scenario.requests[(__VU * 7919 + __ITER) % scenario.requests.length];
  const res = http.post(`${__ENV.BASE || "http://127.0.0.1:8080"}${r.path}`, r.body, { headers: r.headers });
  if (check(res, { accepted: (x) => x.status === 202 })) rowsAccepted.add(r.rows);
}
