// Regenerates the classifier tables in core/data/ from the shared corpus README and the public data files.
//
//   npx tsx core/scripts/build-tables.ts [SHARED_DIR]     (default: ../shared beside the repository)
//
// The corpus README is the authority for which tokens are AI crawlers, agents, markers and assistants (it
// records the decisions on ambiguous entries); robots.json, crawler-user-agents.json and AIAssistants.yml are
// read to attribute each entry to its upstream source and to check that no upstream entry was forgotten.
// The script fails, naming the entry, when the README and the data disagree.
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const coreDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const sharedDir = resolve(process.argv[2] ?? join(coreDir, "..", "..", "shared"));
const dataDir = join(coreDir, "data");

const readme = readFileSync(join(sharedDir, "corpus", "README.md"), "utf8");
const robots = JSON.parse(readFileSync(join(sharedDir, "data", "ai-robots-txt.robots.json"), "utf8")) as Record<
  string,
  { operator: string; function: string }
>;
const crawlerUserAgents = JSON.parse(readFileSync(join(sharedDir, "data", "crawler-user-agents.json"), "utf8")) as Array<{
  pattern: string;
  instances: string[];
  tags?: string[];
}>;
const matomoYaml = readFileSync(join(sharedDir, "data", "matomo-AIAssistants.yml"), "utf8");

function fail(message: string): never {
  console.error(`build-tables: ${message}`);
  process.exit(1);
}

/** The lines of one `## …` section of the README, up to the next heading of the same or higher level. */
function section(headingStart: string): string[] {
  const lines = readme.split("\n");
  const start = lines.findIndex((l) => l.startsWith(headingStart));
  if (start < 0) fail(`README section "${headingStart}" not found`);
  const end = lines.findIndex((l, i) => i > start && /^#{1,2} /.test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** Body rows of the first markdown table in a section, as trimmed cells. */
function tableRows(lines: string[]): string[][] {
  const rows = lines.filter((l) => l.startsWith("|")).map((l) => l.split("|").slice(1, -1).map((c) => c.trim()));
  return rows.slice(2); // header and |---| separator
}

const backticked = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

function single(cell: string, where: string): string {
  const values = backticked(cell);
  if (values.length !== 1) fail(`${where}: expected one backticked value in "${cell}"`);
  return values[0]!;
}

// The boundary rule of the classifier: a token is found when neither neighbour is an ASCII letter or digit.
function containsToken(text: string, token: string): boolean {
  const lower = text.toLowerCase();
  const needle = token.toLowerCase();
  for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, at + 1)) {
    const before = at === 0 ? "" : lower[at - 1]!;
    const after = lower[at + needle.length] ?? "";
    if (!/[a-z0-9]/.test(before) && !/[a-z0-9]/.test(after)) return true;
  }
  return false;
}

const uaInstances = crawlerUserAgents.flatMap((e) => e.instances);

/** Which upstream source lists a UA token: robots.json first (the table's origin), else crawler-user-agents. */
function uaTokenSource(token: string): string {
  if (Object.hasOwn(robots, token)) return "ai-robots-txt";
  if (crawlerUserAgents.some((e) => e.instances.some((ua) => containsToken(ua, token)))) return "crawler-user-agents";
  fail(`token "${token}" is in the README table but neither in robots.json nor in crawler-user-agents instances`);
}

interface UaTokenEntry {
  token: string;
  name: string;
  operator: string;
  source: string;
}

function uaTokenTable(headingStart: string): UaTokenEntry[] {
  return tableRows(section(headingStart)).map(([tokenCell, name, operator]) => {
    const token = single(tokenCell ?? "", headingStart);
    if (!name || !operator) fail(`${headingStart}: row "${token}" lacks a name or operator`);
    return { token, name, operator, source: uaTokenSource(token) };
  });
}

const aiCrawlers = uaTokenTable("## AI crawler tokens");
const aiAgents = uaTokenTable("## AI agent tokens");

// Markers and webview tokens are listed in prose, not tables.
const agentSection = section("## AI agent tokens").join("\n");
const markerLine = agentSection.split("\n").find((l) => l.startsWith("Generic automation markers")) ?? fail("marker line not found");
// Who ships each automation tool; the README lists only the marker strings.
const markerOperators: Record<string, string> = {
  HeadlessChrome: "Google (Chrome headless mode)",
  PhantomJS: "PhantomJS project",
  Puppeteer: "Google (Chrome DevTools team)",
  Playwright: "Microsoft",
  Selenium: "Selenium project",
  Lightpanda: "Lightpanda",
};
const automationMarkers = backticked(markerLine.slice(markerLine.indexOf(":"))).map((token) => ({
  token,
  name: token,
  operator: markerOperators[token] ?? fail(`no operator known for marker ${token}`),
  source: token === "Lightpanda" ? "ai-robots-txt" : "crawler-user-agents",
}));
for (const m of automationMarkers) {
  if (!uaInstances.some((ua) => containsToken(ua, m.token)) && !Object.hasOwn(robots, m.token)) {
    fail(`marker ${m.token} found in no upstream file`);
  }
}

const webviewLine = agentSection.split("\n").find((l) => l.startsWith("AI-app webview tokens")) ?? fail("webview line not found");
const webviewMatch = /`(\w+)` → (\w+)/.exec(webviewLine) ?? fail("webview token not parsed");
const webviews = [{ token: webviewMatch[1]!, name: webviewMatch[2]!, operator: "Google", source: "isbot" }];

// Assistant operators: the README and Matomo list names and hosts only.
const assistantOperators: Record<string, string> = {
  ChatGPT: "OpenAI",
  Perplexity: "Perplexity",
  Claude: "Anthropic",
  Gemini: "Google",
  Copilot: "Microsoft",
  DeepSeek: "DeepSeek",
  Grok: "xAI",
  "Meta AI": "Meta",
  "Le Chat": "Mistral AI",
  "You.com": "You.com",
  "Duck.ai": "DuckDuckGo",
  NotebookLM: "Google",
  Qwen: "Alibaba",
  iAsk: "iAsk",
  "Baidu AI": "Baidu",
  ChatGLM: "Zhipu AI",
  Jasper: "Jasper",
  Writesonic: "Writesonic",
  "Chat+": "unclear",
  Poe: "Quora",
  "Character.AI": "Character.AI",
  Phind: "Phind",
};
const sourceIds: Record<string, string> = {
  "Matomo AIAssistants.yml": "matomo-ai-assistants",
  "Snowplow referers.yml (chatbot section)": "snowplow-referer-parser",
  "project brief": "project-brief",
};

interface ReferrerEntry {
  match: "host" | "host-path" | "android-app";
  host: string;
  pathPrefix?: string;
  name: string;
  operator: string;
  source: string;
}
const assistantReferrers: ReferrerEntry[] = [];
const assistantRows = tableRows(section("## AI assistant referrer hosts"));
for (const [name, hostsCell, sourceCell] of assistantRows) {
  if (!name || !hostsCell || !sourceCell) fail(`assistant row incomplete: ${name}`);
  const operator = assistantOperators[name] ?? fail(`no operator known for assistant ${name}`);
  const source = sourceIds[sourceCell] ?? fail(`unknown assistant source "${sourceCell}"`);
  const values = backticked(hostsCell);
  for (let i = 0; i < values.length; i++) {
    const host = values[i]!;
    // "`x.com` with path `/i/grok…`": the host is followed by its path rule in the same cell.
    if (values[i + 1]?.startsWith("/")) {
      assistantReferrers.push({ match: "host-path", host, pathPrefix: values[i + 1]!.replace("…", ""), name, operator, source });
      i++;
    } else {
      assistantReferrers.push({ match: "host", host, name, operator, source });
    }
  }
}
if (!readme.includes("`android-app://com.openai.chatgpt/` is ChatGPT")) fail("android-app decision not found in README");
assistantReferrers.push({ match: "android-app", host: "com.openai.chatgpt", name: "ChatGPT", operator: "OpenAI", source: "svc-corpus" });

// Every Matomo host must be in the table (Matomo's names differ in two documented cases).
for (const line of matomoYaml.split("\n")) {
  const host = /^\s+-\s+(\S+)/.exec(line)?.[1];
  if (host && !assistantReferrers.some((r) => (r.pathPrefix ? `${r.host}${r.pathPrefix}` : r.host) === host)) {
    fail(`Matomo host ${host} missing from the README assistant table`);
  }
}

const utmRows = tableRows(section("## AI `utm_source` values"));
const aiUtmSources = utmRows.flatMap(([valuesCell, name]) => {
  if (!name || !assistantReferrers.some((r) => r.name === name)) fail(`utm name "${name}" is not an assistant`);
  return backticked(valuesCell ?? "").map((value) => ({ value, name, source: "svc-corpus" }));
});

const exclusionRows = tableRows(section("## robots.json entries deliberately not used"));
const robotsExclusions = exclusionRows.flatMap(([tokensCell, reason, effect]) =>
  backticked(tokensCell ?? "").map((token) => ({ token, reason: reason ?? "", effect: (effect ?? "").replaceAll("`", "") })),
);

// Completeness: every robots.json key is a table token, contains one at word boundaries (alias spellings such
// as `Brightbot 1.0` or `panscient.com`), or is a documented exclusion.
const allUaTokens = [...aiCrawlers, ...aiAgents, ...automationMarkers].map((e) => e.token);
for (const key of Object.keys(robots)) {
  const covered = allUaTokens.some((t) => containsToken(key, t)) || robotsExclusions.some((e) => e.token === key);
  if (!covered) fail(`robots.json key "${key}" is neither a token, an alias nor a documented exclusion`);
}
for (const e of robotsExclusions) {
  if (!Object.hasOwn(robots, e.token)) fail(`excluded token "${e.token}" is not a robots.json key`);
}

function write(file: string, value: unknown): void {
  writeFileSync(join(dataDir, file), `${JSON.stringify(value, null, 2)}\n`);
  const count = Array.isArray(value) ? value.length : Object.keys(value as object).length;
  console.log(`wrote core/data/${file} (${count} entries)`);
}

write("ai-crawlers.json", aiCrawlers);
write("ai-agents.json", aiAgents);
write("automation-markers.json", automationMarkers);
write("webviews.json", webviews);
write("assistant-referrers.json", assistantReferrers);
write("ai-utm-sources.json", aiUtmSources);
write("robots-json-exclusions.json", robotsExclusions);
copyFileSync(join(sharedDir, "data", "isbot-patterns.json"), join(dataDir, "isbot-patterns.json"));
console.log("copied core/data/isbot-patterns.json");
for (const license of ["LICENSE.ai-robots-txt", "LICENSE.crawler-user-agents", "LICENSE.isbot", "LICENSE.matomo-searchengine-and-social-list"]) {
  copyFileSync(join(sharedDir, "data", license), join(dataDir, license));
}
console.log("copied the upstream licence files");
