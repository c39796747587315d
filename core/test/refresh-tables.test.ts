// `npx tsx core/scripts/refresh-tables.ts DIR`, run as a real process against an upstream folder built here:
// what the tables already cover is quiet, every kind of upstream novelty is reported, nothing is written.
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { genericBotPatterns } from "../src/classify/index.ts";

const script = new URL("../scripts/refresh-tables.ts", import.meta.url).pathname;
const dataDir = new URL("../data/", import.meta.url).pathname;

function run(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ["--import", "tsx", script, ...args], (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr });
    });
  });
}

interface Upstream {
  readonly robots: Record<string, { operator: string; function: string }>;
  readonly crawlerUserAgents: Array<{ pattern: string; instances: string[]; tags: string[] }>;
  readonly deviceDetectorBots: string;
  readonly deviceDetectorApps: string;
  readonly matomo: string;
  readonly isbotPatterns: readonly string[];
}

function upstreamDir(u: Upstream): string {
  const dir = mkdtempSync(join(tmpdir(), "svc-refresh-"));
  writeFileSync(join(dir, "ai-robots-txt.robots.json"), JSON.stringify(u.robots));
  writeFileSync(join(dir, "crawler-user-agents.json"), JSON.stringify(u.crawlerUserAgents));
  writeFileSync(join(dir, "device-detector-bots.yml"), u.deviceDetectorBots);
  writeFileSync(join(dir, "device-detector-hints-apps.yml"), u.deviceDetectorApps);
  writeFileSync(join(dir, "matomo-AIAssistants.yml"), u.matomo);
  writeFileSync(join(dir, "isbot-patterns.json"), JSON.stringify(u.isbotPatterns));
  return dir;
}

const known: Upstream = {
  robots: { GPTBot: { operator: "OpenAI", function: "AI training" }, "Brightbot 1.0": { operator: "Brightbot", function: "AI" } },
  crawlerUserAgents: [{ pattern: "GPTBot", tags: ["ai-crawler"], instances: ["Mozilla/5.0 (compatible; GPTBot/1.1; +https://openai.com/gptbot)"] }],
  deviceDetectorBots: "- regex: 'KimiBot'\n  name: 'KimiBot'\n  category: 'AI Data Scraper'\n  producer:\n    name: 'Moonshot AI Pte. Ltd.'\n",
  deviceDetectorApps: "# AI\n'com.deepseek.chat': 'DeepSeek'\n\n# Vpns\n'com.ezt.vpn': 'EZVPN'\n",
  matomo: "ChatGPT:\n  - chatgpt.com\n\nGrok:\n  - grok.com\n  - x.com/i/grok\n",
  isbotPatterns: genericBotPatterns,
};

describe("refresh-tables", () => {
  it("reports nothing when upstream holds only what the tables cover, and writes nothing", async () => {
    const mtimes = readdirSync(dataDir).map((f) => statSync(join(dataDir, f)).mtimeMs);
    const { code, stdout } = await run(["--check", upstreamDir(known)]);
    expect(stdout).toContain("nothing new upstream");
    expect(code).toBe(0);
    expect(readdirSync(dataDir).map((f) => statSync(join(dataDir, f)).mtimeMs)).toEqual(mtimes);
  }, 30_000);

  it("reports every kind of upstream novelty, and --check exits 1", async () => {
    const dir = upstreamDir({
      robots: { ...known.robots, "Zeta-NewBot": { operator: "Zeta", function: "AI Search Crawlers" } },
      crawlerUserAgents: [...known.crawlerUserAgents, { pattern: "OmegaFetch", tags: ["ai-crawler"], instances: ["OmegaFetch/2.0"] }],
      deviceDetectorBots: `${known.deviceDetectorBots}\n- regex: 'Theta-AgentX'\n  name: 'Theta AgentX'\n  category: 'AI Agent'\n`,
      deviceDetectorApps: known.deviceDetectorApps.replace("# AI\n", "# AI\n'ai.example.assistant': 'Example Assistant'\n"),
      matomo: `${known.matomo}\nNewChat:\n  - newchat.example\n`,
      isbotPatterns: [...genericBotPatterns.filter((p) => p !== "manager"), "brand-new-pattern"],
    });
    const { code, stdout } = await run(["--check", dir]);
    expect(code).toBe(1);
    for (const line of [
      'new key "Zeta-NewBot" (AI Search Crawlers; operator: Zeta)',
      "[ai-crawler] OmegaFetch: 1 instance(s) not AI",
      'AI Agent: "Theta AgentX" (regex Theta-AgentX)',
      'assistant app ai.example.assistant ("Example Assistant") has no assistant entry',
      "NewChat: host newchat.example names no assistant",
      "added upstream: brand-new-pattern",
      "removed upstream: manager",
      "7 item(s) for review",
    ]) {
      expect(stdout).toContain(line);
    }
  }, 30_000);

  it("needs nothing outside the repository at run time: the classifier reads only core/data", () => {
    const tables = readFileSync(new URL("../src/classify/tables.ts", import.meta.url), "utf8");
    expect(tables).not.toMatch(/shared|corpus\/README/);
  });
});
