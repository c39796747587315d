// `npm run classify -- FILE.jsonl`, run as a real process, and the corpus line parser behind it.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCorpusLine } from "../src/classify/index.ts";

const cli = new URL("../src/cli/classify.ts", import.meta.url).pathname;
const corpus = new URL("./fixtures/actors.jsonl", import.meta.url).pathname;

function runCli(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ["--import", "tsx", cli, ...args], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr });
    });
  });
}

function tempFile(content: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "svc-classify-")), "input.jsonl");
  writeFileSync(file, content);
  return file;
}

describe("classify CLI", () => {
  it("prints one result per corpus line in order and 100% actor and name accuracy", async () => {
    const { code, stdout, stderr } = await runCli([corpus]);
    expect(code).toBe(0);
    const out = stdout.trimEnd().split("\n").map((l) => JSON.parse(l) as { actor: string; name: string | null; rule: string });
    const expected = readFileSync(corpus, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l) as { expected: string; name: string | null });
    expect(out).toHaveLength(610);
    expect(out.map((o) => [o.actor, o.name])).toEqual(expected.map((e) => [e.expected, e.name]));
    expect(Object.keys(out[0]!)).toEqual(["actor", "name", "rule"]);
    expect(stderr).toContain("actor accuracy: 610/610 = 100.00%");
    expect(stderr).toContain("name accuracy:  610/610 = 100.00%");
    expect(stderr).not.toContain("mismatch");
  }, 30_000);

  it("reports bad lines with their line numbers, lists mismatches, keeps going and exits 1", async () => {
    const file = tempFile(
      [
        '{"ua":"Mozilla/5.0 (compatible; GPTBot/1.2)","referrer":null,"utm_source":null,"js":false}',
        "not json",
        '{"ua":42,"referrer":null,"utm_source":null,"js":true}',
        "",
        '{"ua":"curl/8.0","referrer":null,"utm_source":null,"js":false,"expected":"human","name":null}',
        '{"ua":"curl/8.0","referrer":null,"utm_source":null,"js":"yes"}',
      ].join("\n"),
    );
    const { code, stdout, stderr } = await runCli([file]);
    expect(code).toBe(1);
    expect(stdout.trimEnd().split("\n").map((l) => JSON.parse(l))).toEqual([
      { actor: "ai_crawler", name: "GPTBot", rule: "ai_crawler_token" },
      { actor: "bot", name: null, rule: "generic_bot" },
    ]);
    expect(stderr).toContain(`${file}:2: not valid JSON`);
    expect(stderr).toContain(`${file}:3: "ua" must be a string, got number`);
    expect(stderr).toContain(`${file}:4: empty line`);
    expect(stderr).toContain(`${file}:5: mismatch: expected human/null, got bot/null (generic_bot)`);
    expect(stderr).toContain(`${file}:6: "js" must be true or false, got string`);
    expect(stderr).toContain("actor accuracy: 0/1 = 0.00%");
    expect(stderr).toContain("4 of 6 lines could not be classified");
  }, 30_000);

  it("prints no accuracy when lines carry no expected label", async () => {
    const file = tempFile('{"ua":"Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0","referrer":"https://claude.ai/","utm_source":null,"js":true}\n');
    const { code, stdout, stderr } = await runCli([file]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ actor: "human_via_ai", name: "Claude", rule: "assistant_referrer" });
    expect(stderr).not.toContain("accuracy");
  }, 30_000);

  it("exits 2 with a clear message on a missing file or missing argument", async () => {
    const missing = await runCli(["/nonexistent/actors.jsonl"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("/nonexistent/actors.jsonl: cannot read: no such file");
    const noArgs = await runCli([]);
    expect(noArgs.code).toBe(2);
    expect(noArgs.stderr).toContain("usage: npm run classify -- FILE.jsonl");
  }, 30_000);
});

describe("parseCorpusLine", () => {
  it.each([
    ['{"ua":"x","referrer":null,"utm_source":null,"js":true}', { ua: "x", referrer: null, utm_source: null, js: true }],
    ['{"ua":"x","js":false}', { ua: "x", referrer: null, utm_source: null, js: false }],
    ['{"ua":"","referrer":"https://a/","utm_source":"b","js":true,"expected":"bot","name":null,"src":"synthetic"}', { ua: "", referrer: "https://a/", utm_source: "b", js: true }],
  ])("accepts %s", (text, input) => {
    const parsed = parseCorpusLine(text);
    expect(parsed.ok && parsed.line.input).toEqual(input);
  });

  it.each([
    ["", "empty line; expected a JSON object"],
    ["[1]", "expected a JSON object, got an array"],
    ["null", "expected a JSON object, got null"],
    ['{"referrer":null,"js":true}', '"ua" must be a string, got undefined'],
    ['{"ua":"x","referrer":5,"js":true}', '"referrer" must be a string or null, got number'],
    ['{"ua":"x","utm_source":{},"js":true}', '"utm_source" must be a string or null, got object'],
    ['{"ua":"x"}', '"js" must be true or false, got undefined'],
    ['{"ua":"x","js":true,"expected":"robot"}', '"expected" must be one of human, human_via_ai, ai_crawler, ai_agent, bot, got "robot"'],
    ['{"ua":"x","js":true,"expected":"bot","name":1}', '"name" must be a string or null, got number'],
    ['{"ua":"x","js":true,"src":[]}', '"src" must be a string, got an array'],
  ])("rejects %j: %s", (text, message) => {
    const parsed = parseCorpusLine(text);
    expect(parsed.ok ? "accepted" : parsed.error).toBe(message);
  });
});
