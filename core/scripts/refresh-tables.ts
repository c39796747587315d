// Compares the classifier tables (core/data/*.json, the committed source of truth) with the upstream lists
// in the shared data folder and prints what is new or changed there, for a person to review. It writes
// nothing: the reviewer edits core/data/*.json (each entry with its source), updates the source's commit
// and date in core/data/sources.json, and runs the core tests.
//
//   npx tsx core/scripts/refresh-tables.ts [DATA_DIR]      (default: ../shared/data beside the repository)
//   npx tsx core/scripts/refresh-tables.ts --check [DIR]   (exit 1 when anything is up for review)
//
// Device Detector's lists are LGPL: only facts (a token, a host, a package id, a category) are reported,
// nothing is copied. Every upstream file is read with a few lines of parsing (the YAML files are flat).
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  aiAgents,
  aiCrawlers,
  assistantFromReferrer,
  assistants,
  automationMarkers,
  classifyUserAgent,
  genericBotPatterns,
  reviewedUpstream,
  robotsJsonExclusions,
} from "../src/classify/index.ts";

const args = process.argv.slice(2);
const check = args.includes("--check");
const repoDir = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const dataDir = resolve(args.find((a) => !a.startsWith("--")) ?? join(repoDir, "..", "shared", "data"));
const read = (file: string): string => readFileSync(join(dataDir, file), "utf8");

interface Finding {
  readonly list: string;
  readonly what: string;
}
const findings: Finding[] = [];
const report = (list: string, what: string): void => void findings.push({ list, what });

const tokens = [...aiCrawlers, ...aiAgents, ...automationMarkers];
const tokenSet = new Set(tokens.map((t) => t.token.toLowerCase()));
const excluded = new Set(robotsJsonExclusions.map((e) => e.token.toLowerCase()));
const isAi = (actor: string): boolean => actor === "ai_crawler" || actor === "ai_agent";
// Upstream entries a person reviewed and decided on (core/data/reviewed-upstream.json), and robots.json exclusions.
const reviewed = new Set(reviewedUpstream.map((r) => `${r.list}:${r.entry}`));
function compiles(pattern: string): RegExp | null {
  try {
    return new RegExp(pattern, "i");
  } catch {
    return null; // a PCRE-only construct: fall back to the name
  }
}

// ai.robots.txt: every key is a table token, names one when used as a UA (alias spellings such as
// `Brightbot 1.0`), or is a documented exclusion.
const robots = JSON.parse(read("ai-robots-txt.robots.json")) as Record<string, { operator: string; function: string }>;
for (const [key, entry] of Object.entries(robots)) {
  if (tokenSet.has(key.toLowerCase()) || excluded.has(key.toLowerCase())) continue;
  if (isAi(classifyUserAgent(key).actor)) continue;
  report("ai.robots.txt robots.json", `new key "${key}" (${entry.function}; operator: ${entry.operator})`);
}

// crawler-user-agents: every instance of an ai-crawler or browser-automation entry comes out as an AI actor
// or is an entry the tables deliberately leave to the generic patterns.
const crawlerUserAgents = JSON.parse(read("crawler-user-agents.json")) as Array<{ pattern: string; instances: string[]; tags?: string[] }>;
for (const e of crawlerUserAgents) {
  const tags = e.tags ?? [];
  if (!tags.includes("ai-crawler") && !tags.includes("browser-automation")) continue;
  const missed = e.instances.filter((ua) => !isAi(classifyUserAgent(ua).actor));
  if (missed.length > 0 && !reviewed.has(`crawler-user-agents:${e.pattern}`) && !excluded.has(e.pattern.toLowerCase())) {
    report("crawler-user-agents", `[${tags.join(", ")}] ${e.pattern}: ${missed.length} instance(s) not AI, e.g. ${JSON.stringify(missed[0])}`);
  }
}

// Device Detector bots.yml: entries in an AI category whose literal name or regex the tables do not cover.
const ddEntries: Array<Record<string, string>> = [];
for (const line of read("device-detector-bots.yml").split("\n")) {
  // Entry keys sit at "- " or two spaces; deeper keys (a producer's name) are not the entry's.
  const m = /^(- |  )(regex|name|category): '(.*)'\s*$/.exec(line);
  if (m === null) continue;
  if (m[1]!.startsWith("-")) ddEntries.push({});
  ddEntries.at(-1)![m[2]!] = m[3]!.replace(/''/g, "'");
}
for (const e of ddEntries) {
  if (!/^AI /.test(e.category ?? "")) continue;
  // Covered when the entry's regex matches one of our tokens, or its name classifies as AI, or it was reviewed.
  const regex = compiles(e.regex ?? "");
  const covered =
    reviewed.has(`device-detector:${e.name}`) ||
    excluded.has((e.name ?? "").toLowerCase()) ||
    isAi(classifyUserAgent(e.name ?? "").actor) ||
    (regex !== null && tokens.some((t) => regex.test(t.token)));
  if (!covered) report("Device Detector bots.yml", `${e.category}: "${e.name}" (regex ${e.regex})`);
}

// Device Detector hints/apps.yml, section "# AI": Android package ids of assistant apps.
const appLines = read("device-detector-hints-apps.yml").split("\n");
const aiStart = appLines.findIndex((l) => l.trim() === "# AI");
for (const line of aiStart < 0 ? [] : appLines.slice(aiStart + 1)) {
  if (line.startsWith("#")) break;
  const m = /^'([^']+)':\s*'([^']+)'/.exec(line);
  if (m !== null && assistantFromReferrer(`android-app://${m[1]}/`) === null) {
    report("Device Detector hints/apps.yml", `assistant app ${m[1]} ("${m[2]}") has no assistant entry`);
  }
}

// Matomo AIAssistants.yml: every host (or host/path) is a signal of an assistant.
let matomoName = "";
for (const line of read("matomo-AIAssistants.yml").split("\n")) {
  const name = /^(\S[^:]*):\s*$/.exec(line)?.[1];
  if (name !== undefined) matomoName = name;
  const host = /^\s+-\s+(\S+)/.exec(line)?.[1];
  if (host !== undefined && assistantFromReferrer(`https://${host}`) === null) {
    report("Matomo AIAssistants.yml", `${matomoName}: host ${host} names no assistant`);
  }
}

// isbot's pattern list: kept as an unchanged copy, so any difference is an upstream change.
const upstreamPatterns = JSON.parse(read("isbot-patterns.json")) as string[];
const ours = new Set(genericBotPatterns);
const theirs = new Set(upstreamPatterns);
for (const p of upstreamPatterns) if (!ours.has(p)) report("isbot patterns.json", `added upstream: ${p}`);
for (const p of genericBotPatterns) if (!theirs.has(p)) report("isbot patterns.json", `removed upstream: ${p}`);

// Node 20 has no Map.groupBy.
const byList = new Map<string, Finding[]>();
for (const f of findings) byList.set(f.list, [...(byList.get(f.list) ?? []), f]);
console.log(`classifier tables vs ${dataDir}`);
console.log(`tables: ${aiCrawlers.length} crawler tokens, ${aiAgents.length} agent tokens, ${automationMarkers.length} markers, ${assistants.length} assistants`);
for (const [list, items] of byList) {
  console.log(`\n${list}: ${items.length} for review`);
  for (const f of items) console.log(`  - ${f.what}`);
}
console.log(`\n${findings.length === 0 ? "nothing new upstream" : `${findings.length} item(s) for review`}`);
if (check && findings.length > 0) process.exitCode = 1;
