// npm run classify -- FILE.jsonl   (FILE may be "-" for stdin)
//
// Classifies every line of a corpus-format JSONL file and prints one {"actor","name","rule"} line per input
// line, in input order, on stdout. When lines carry `expected`, the actor and name accuracy and every
// mismatch go to stderr. A bad line gets an error with its line number on stderr and no stdout line; the
// exit code is 1 if any line was bad, 2 on a usage or read error.
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { classify, parseCorpusLine } from "../classify/index.ts";

const USAGE = "usage: npm run classify -- FILE.jsonl   (FILE may be - for stdin)";
// Writing in batches keeps the per-line cost to string building; 1,000 lines is ~60 KB per write.
const BATCH_LINES = 1000;

const percent = (n: number, of: number): string => (of === 0 ? "n/a" : `${((100 * n) / of).toFixed(2)}%`);

async function main(argv: readonly string[]): Promise<number> {
  if (argv.length !== 1 || argv[0] === "-h" || argv[0] === "--help") {
    console.error(USAGE);
    return 2;
  }
  const file = argv[0]!;
  const stream = file === "-" ? process.stdin : createReadStream(file, { encoding: "utf8" });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });

  let lineNo = 0;
  let badLines = 0;
  let labelled = 0;
  let actorHits = 0;
  let nameHits = 0;
  let batch: string[] = [];

  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const chunk = `${batch.join("\n")}\n`;
    batch = [];
    if (!process.stdout.write(chunk)) await new Promise<void>((resolve) => process.stdout.once("drain", resolve));
  };

  try {
    for await (const text of lines) {
      lineNo++;
      const parsed = parseCorpusLine(text);
      if (!parsed.ok) {
        badLines++;
        console.error(`${file}:${lineNo}: ${parsed.error}`);
        continue;
      }
      const { input, expected, name } = parsed.line;
      const got = classify(input);
      batch.push(JSON.stringify({ actor: got.actor, name: got.name, rule: got.rule }));
      if (batch.length >= BATCH_LINES) await flush();
      if (expected === undefined) continue;
      labelled++;
      const actorOk = got.actor === expected;
      const nameOk = got.name === name;
      if (actorOk) actorHits++;
      if (nameOk) nameHits++;
      if (!actorOk || !nameOk) {
        console.error(
          `${file}:${lineNo}: mismatch: expected ${expected}/${name ?? "null"}, got ${got.actor}/${got.name ?? "null"} (${got.rule}); ua=${JSON.stringify(input.ua)}`,
        );
      }
    }
    await flush();
  } catch (error) {
    await flush();
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message;
    console.error(`${file}: cannot read: ${reason}`);
    return 2;
  }

  if (labelled > 0) {
    console.error(`actor accuracy: ${actorHits}/${labelled} = ${percent(actorHits, labelled)}`);
    console.error(`name accuracy:  ${nameHits}/${labelled} = ${percent(nameHits, labelled)}`);
  }
  if (badLines > 0) {
    console.error(`${badLines} of ${lineNo} lines could not be classified`);
    return 1;
  }
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
