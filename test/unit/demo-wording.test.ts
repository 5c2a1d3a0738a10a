/**
 * The demo benchmark reads as people wrote it (issue 27, point 10): its questions are English,
 * not templates over column names ("Which returned is the most common among loans?"), and the
 * sample agents' answers say what was asked ("There are 14 such ships.", not "It is 14.").
 * Reads the generated files themselves, as a visitor of the board sees them.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SCHEMAS } from "@/benchmarks/demo/environment/domains";
import { DEMO_DIR } from "@/scripts/demo/build-demo";
import { NOUNS } from "@/scripts/demo/wording";

interface Turn {
  query: string;
  answer?: unknown;
}

/** Dialogue files under `dir`; the invalid bundle is broken on purpose (a truncated file) and left out. */
const jsonFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? (e.name === "invalid-bundle" ? [] : jsonFiles(path.join(dir, e.name))) : e.name.endsWith(".json") ? [path.join(dir, e.name)] : [],
  );
/** The records of every dialogue file under `dir` (metadata.json is no list of records). */
const records = (dir: string) =>
  jsonFiles(dir).flatMap((file) => {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as unknown;
    return Array.isArray(parsed) ? (parsed as Record<string, unknown>[]).map((r) => ({ file: path.relative(DEMO_DIR, file), r })) : [];
  });

const inputs = records(path.join(DEMO_DIR, "input")).flatMap(({ file, r }) => ((r.dialogue as { turns: Turn[] }).turns ?? []).map((t) => ({ file, uuid: r.uuid as string, query: t.query })));
const answers = records(path.join(DEMO_DIR, "submissions"))
  .flatMap(({ file, r }) => ((r.output as Turn[] | undefined) ?? []).filter((t) => typeof t.answer === "string").map((t) => ({ file, uuid: r.uuid as string, query: t.query, answer: t.answer as string })));

const nouns = Object.values(NOUNS).flatMap((d) => Object.values(d));
const singulars = new Set(nouns.filter((n) => n.one !== n.many).map((n) => n.one.split(" ").at(-1)!));
/** Plural nouns of more than one word ("race results"), whose first word is a singular noun of its own. */
const manyNouns = new Set(nouns.map((n) => n.many));
const plurals = nouns.map((n) => n.many.split(" ").at(-1)!).join("|");
/** "flag Denmark", "returned 1", "cargo type containers": a column name put before its value. */
const columnThenValue = new RegExp(
  String.raw`\b(${[...new Set(Object.values(SCHEMAS).flatMap((ts) => ts.flatMap((t) => t.columns.filter((c) => c.role === "category").map((c) => c.name.replace(/_/g, " ")))))].join("|")}) (\d+|[A-Z][a-z]+)\b`,
);

/** The reasons a question does not read as a person's, if any. */
function questionFaults(q: string): string[] {
  const faults: string[] = [];
  if (!/^[A-Z]/.test(q) || !q.endsWith("?")) faults.push("is not a sentence ending in a question mark");
  if (q.includes("_")) faults.push("holds a raw column name");
  if (/\((m|s|km\/h)\)/.test(q)) faults.push("holds a unit as a column header");
  if (/\blinked to\b/.test(q)) faults.push('says "linked to" for a relation');
  if (/^Which returned\b/.test(q)) faults.push("asks which returned");
  const column = columnThenValue.exec(q);
  if (column) faults.push(`puts a column name before its value ("${column[0]}")`);
  const howMany = /^How many (\S+)(?: (\S+))?/.exec(q);
  if (howMany && singulars.has(howMany[1]!) && !manyNouns.has(`${howMany[1]} ${howMany[2]}`)) faults.push(`counts a singular "${howMany[1]}"`);
  return faults;
}

/** The reasons an answer does not read as a person's answer to its question, if any. */
function answerFaults(q: string, a: string): string[] {
  const faults: string[] = [];
  if (/^The answer is\b/.test(a)) faults.push('opens with "The answer is"');
  // "It is 230.5 metres long." states a measure; "It is Norway." and "It is 14." only echo a value.
  if (/^It is (?!\d[\d.,]* [a-z])/.test(a)) faults.push('answers with "It is <value>."');
  if (/^How many\b/.test(q)) {
    if (!/\d/.test(a)) faults.push("gives no count");
    if (/^It\b/.test(a)) faults.push('answers a count with "It"');
  }
  if (/\bThere are 1\b/.test(a) || new RegExp(String.raw`(^|\s)1 (such )?(\w+ )?(${plurals})\b`).test(a)) faults.push("counts one with a plural");
  if (/\bThere is (0|[2-9]|\d{2,})\b/.test(a)) faults.push("counts several with a singular");
  return faults;
}

describe("the demo benchmark's wording", () => {
  it("asks every question as a person would write it", () => {
    expect(inputs.length).toBeGreaterThan(300);
    const bad = inputs.flatMap(({ file, uuid, query }) => questionFaults(query).map((f) => `${file} ${uuid}: "${query}" ${f}`));
    expect(bad.slice(0, 12), `${bad.length} questions read like templates`).toEqual([]);
  });

  it("has the sample agents answer what was asked, keeping the value the judges check", () => {
    expect(answers.length).toBeGreaterThan(1000);
    const bad = answers.flatMap(({ file, uuid, query, answer }) => answerFaults(query, answer).map((f) => `${file} ${uuid}: "${query}" → "${answer}" ${f}`));
    expect(bad.slice(0, 12), `${bad.length} answers read like templates`).toEqual([]);
  });

  it("keeps the reference value verbatim in every answer of the oracle", () => {
    const reference = new Map(
      records(path.join(DEMO_DIR, "groundtruth")).map(({ r }) => {
        const last = (r.output as Turn[]).at(-1)!;
        return [r.uuid as string, String((last.answer as unknown[][])[0]![0])];
      }),
    );
    const oracle = answers.filter((a) => a.file.startsWith(path.join("submissions", "oracle")));
    expect(oracle.length).toBe(300);
    const missing = oracle.filter((a) => !a.answer.includes(reference.get(a.uuid)!)).map((a) => `${a.uuid}: "${a.answer}"`);
    expect(missing).toEqual([]);
  });

  it("recognises the template wording it replaced", () => {
    expect(questionFaults("Which returned is the most common among loans?")).toContain("asks which returned");
    expect(questionFaults("How many ships have flag Denmark?")).toEqual(['puts a column name before its value ("flag Denmark")']);
    expect(questionFaults("What is the average length (m) of ships with flag Malta?")).toHaveLength(2);
    expect(questionFaults("Which operator is linked to the ship with the highest built_year?")).toHaveLength(2);
    expect(answerFaults("How many ships sail under the flag of Malta?", "It is 14.")).toEqual(['answers with "It is <value>."', 'answers a count with "It"']);
    expect(answerFaults("How many ships sail under the flag of Malta?", "There are 1 such ships.")).toEqual(["counts one with a plural"]);
    expect(answerFaults("Which ship is the longest?", "The answer is Azure Pearl.")).toEqual(['opens with "The answer is"']);
    expect(questionFaults("How many ship are longer than 300 metres?")).toEqual(['counts a singular "ship"']);
    expect(questionFaults("How many race results are there?")).toEqual([]);
    expect(questionFaults("Under which flag do the most ships sail?")).toEqual([]);
    expect(answerFaults("How many ships sail under the flag of Malta?", "There is 1 such ship.")).toEqual([]);
  });
});
