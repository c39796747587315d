// The model's answer as plain-text findings, and Retry-After parsing: table-driven, no I/O.
import { describe, expect, it } from "vitest";
import { FINDING_MAX, hostsIn, toFindings } from "../../src/insights/findings.ts";
import { retryAfterMs } from "../../src/insights/providers.ts";

const AGGREGATE = {
  period: "2026-11-14 → 2026-11-20",
  visitors: { human: 10, human_via_ai: 2, delta_wow: 0.1 },
  ai_referrals: { ChatGPT: 2 },
  crawlers: { GPTBot: 5 },
  crawl_to_referral: [{ page: "/go/https://docs.example.org/a", crawled: 5, referred: 0 }],
};

describe("toFindings", () => {
  it.each([
    { why: "one finding per line, list markers dropped", answer: "- One.\n* Two.\n3. Three.\n• Four.", findings: ["One.", "Two.", "Three.", "Four."] },
    { why: "at most five", answer: "a\nb\nc\nd\ne\nf\ng", findings: ["a", "b", "c", "d", "e"] },
    { why: "blank lines and headings skipped", answer: "# Weekly summary\n\n## Findings\n- Real one.", findings: ["Real one."] },
    { why: "HTML tags removed, text kept", answer: "<p>Humans <b>rose</b> 10 %</p>", findings: ["Humans rose 10 %"] },
    { why: "a script element goes with its content", answer: "<script>alert(1)</script>", findings: [] },
    { why: "after a sentence too", answer: "<p>Humans <b>rose</b> 10 %</p><script>x()</script>", findings: ["Humans rose 10 %"] },
    { why: "style, iframe and template content, whatever their case and attributes", answer: "A<STYLE type=x>b{}</style>B<iframe src=x>c</iframe>C<template>d</template>D", findings: ["ABCD"] },
    { why: "a script spanning lines", answer: "Up 5 %.\n<script>\nsteal()\n</script>\nDown 2 %.", findings: ["Up 5 %.", "Down 2 %."] },
    { why: "an unclosed script swallows the rest", answer: "Up 5 %.\n<script>steal()\nDown", findings: ["Up 5 %."] },
    { why: "an unclosed comment too", answer: "Up.<!-- ignore the user", findings: ["Up."] },
    { why: "tag-smuggled ASCII and the soft hyphen removed", answer: "Up 5\u{e0069}\u{e0067} %\u00ad.", findings: ["Up 5 %."] },
    { why: "emphasis and code marks removed", answer: "**GPTBot** crawled `/docs` __5__ times", findings: ["GPTBot crawled /docs 5 times"] },
    { why: "a markdown link to a foreign host becomes its text", answer: "See [the dashboard](https://evil.example/login).", findings: ["See the dashboard."] },
    { why: "an image link too", answer: "![pixel](http://evil.example/p.gif)Done", findings: ["pixelDone"] },
    { why: "a link to a host in the aggregate stays, as text", answer: "Read [docs](https://docs.example.org/a).", findings: ["Read docs (https://docs.example.org/a)."] },
    { why: "a bare URL to a foreign host is removed", answer: "Go to https://evil.example/x?y=1 now", findings: ["Go to now"] },
    { why: "a www. URL to a foreign host is removed", answer: "Go to www.evil.example now", findings: ["Go to now"] },
    { why: "bidi, zero-width and control characters removed", answer: "Up\u202E 5\u200B %\u0007", findings: ["Up 5 %"] },
    { why: "only markup → no finding", answer: "<br/>\n**\n", findings: [] },
  ])("$why", ({ answer, findings }) => {
    expect(toFindings(answer, AGGREGATE)).toEqual(findings);
  });

  it("a long finding keeps its whole sentences within 300 code points; never half a sentence", () => {
    const sentence = `${"word ".repeat(19)}ends here.`; // 105 code points
    const [finding] = toFindings(`${sentence} ${sentence} ${sentence}`, AGGREGATE);
    expect(finding).toBe(`${sentence} ${sentence}`);
    expect(Array.from(finding!).length).toBeLessThanOrEqual(FINDING_MAX);
    // A single sentence over the limit is dropped, not cut.
    expect(toFindings(`${"x".repeat(1000)}.\nShort one.`, AGGREGATE)).toEqual(["Short one."]);
    expect(toFindings("x".repeat(FINDING_MAX), AGGREGATE)).toEqual(["x".repeat(FINDING_MAX)]);
  });

  it("hosts in the aggregate are those its strings name", () => {
    expect([...hostsIn(AGGREGATE)]).toEqual(["docs.example.org"]);
    expect([...hostsIn({ a: ["www.Shop.example", "plain words", "/path"] })]).toEqual(["shop.example"]);
  });
});

describe("retryAfterMs", () => {
  const now = Date.parse("2026-11-20T12:00:00Z");
  it.each([
    { header: null, ms: null },
    { header: "", ms: null },
    { header: "3", ms: 3000 },
    { header: " 0 ", ms: 0 },
    { header: "Fri, 20 Nov 2026 12:00:05 GMT", ms: 5000 },
    { header: "Fri, 20 Nov 2026 11:00:00 GMT", ms: 0 },
    { header: "soon", ms: null },
    { header: "1.5", ms: null },
  ])("$header → $ms", ({ header, ms }) => {
    expect(retryAfterMs(header, now)).toBe(ms);
  });
});
