// Issue 15's miss classes, one corpus-format fixture each (fixtures/issue15/*.jsonl, sources in `src` and in
// fixtures/CLASSIFIER-FIXTURES.md): AI crawlers and agents documented after the corpus snapshot, assistant
// referrals in forms other than one https host, and precision (real people never called bots, URL tokens,
// headless services). `npm run classify -- core/test/fixtures/issue15/<file>.jsonl` prints the accuracy.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { classify, parseCorpusLine } from "../src/classify/index.ts";

function fixture(name: string) {
  return readFileSync(new URL(`./fixtures/issue15/${name}.jsonl`, import.meta.url), "utf8")
    .trimEnd()
    .split("\n")
    .map((text, i) => {
      const parsed = parseCorpusLine(text);
      if (!parsed.ok) throw new Error(`${name}.jsonl:${i + 1}: ${parsed.error}`);
      return { line: i + 1, ...parsed.line };
    });
}

describe.each([
  ["new-ai-tokens", 15],
  ["assistant-signals", 60],
  ["precision", 12],
] as const)("issue 15 class %s", (name, atLeast) => {
  const rows = fixture(name);

  it(`has at least ${atLeast} sourced cases`, () => {
    expect(rows.length).toBeGreaterThanOrEqual(atLeast);
    for (const r of rows) expect(r.src?.trim(), `line ${r.line}`).toBeTruthy();
  });

  it.each(rows)("line $line: $input.ua $input.referrer $input.utm_source", ({ input, expected, name: expectedName }) => {
    const got = classify(input);
    expect({ actor: got.actor, name: got.name }).toEqual({ actor: expected, name: expectedName });
  });
});

describe("precision rules name the rule that decided", () => {
  it("a WeChat in-app browser is the default human; devtools beside it stay a generic bot", () => {
    const [wechat, , devtools] = fixture("precision");
    expect(classify(wechat!.input).rule).toBe("default");
    expect(classify(devtools!.input).rule).toBe("generic_bot");
  });

  it("a headless browser beside a named non-AI service is headless_service", () => {
    const phantomas = fixture("precision").find((r) => r.input.ua.startsWith("phantomas/"))!;
    expect(classify(phantomas.input)).toEqual({ actor: "bot", name: null, rule: "headless_service" });
  });

  it("search modes and android-app referrers are assistant_referrer; utm in URL form is assistant_utm", () => {
    const rows = fixture("assistant-signals");
    const by = (pred: (r: (typeof rows)[number]) => boolean) => classify(rows.find(pred)!.input).rule;
    expect(by((r) => r.input.referrer?.includes("udm=50") === true)).toBe("assistant_referrer");
    expect(by((r) => r.input.referrer?.startsWith("android-app://com.anthropic.claude") === true)).toBe("assistant_referrer");
    expect(by((r) => r.input.utm_source === "https://chatgpt.com/")).toBe("assistant_utm");
  });
});
