/**
 * Variants of a demo sample bundle, as a submitter dressing up someone else's outputs (or a
 * genuinely different agent) would make them: every answer or tool call rewritten by a
 * function, under a new agent name (so a new sha256, so a new submission).
 */
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DEMO_DIR } from "@/scripts/demo/build-demo";

interface RawCall {
  name: string;
  arguments?: unknown;
}
interface RawTurn {
  answer: unknown;
  sequence?: { tool_call?: RawCall[] } | { tool_call?: RawCall[] }[];
}
export interface RawRecord {
  uuid: string;
  output: RawTurn[];
}

/** Every string of an answer (a string, or the strings inside nested lists) through `edit`; numbers are left. */
export function mapAnswerStrings(answer: unknown, edit: (s: string) => string): unknown {
  if (typeof answer === "string") return edit(answer);
  if (Array.isArray(answer)) return answer.map((a) => mapAnswerStrings(a, edit));
  return answer;
}

/** The first tool call of a turn (its sequence an object or a list of objects), or undefined. */
function callLists(turn: RawTurn): RawCall[][] {
  const parts = Array.isArray(turn.sequence) ? turn.sequence : turn.sequence ? [turn.sequence] : [];
  return parts.flatMap((p) => (Array.isArray(p.tool_call) ? [p.tool_call] : []));
}

/** Repeats each turn's first tool call right after it (what a replay runs twice, harmlessly). */
export function repeatFirstCall(turn: RawTurn): void {
  const first = callLists(turn).find((calls) => calls.length > 0);
  if (first) first.splice(1, 0, structuredClone(first[0]!));
}

/**
 * `agent`'s sample bundle copied to `dir` under `agentName`, each record passed to `edit`
 * (which changes it in place) in every domain file of every capability.
 */
export function demoVariant(dir: string, agent: string, agentName: string, edit: (record: RawRecord, file: string) => void): string {
  cpSync(path.join(DEMO_DIR, "submissions", agent), dir, { recursive: true });
  for (const cap of readdirSync(dir)) {
    const capDir = path.join(dir, cap);
    if (!statSync(capDir).isDirectory()) continue;
    for (const f of readdirSync(capDir).filter((n) => n.endsWith(".json"))) {
      const file = path.join(capDir, f);
      const records = JSON.parse(readFileSync(file, "utf8")) as RawRecord[];
      for (const r of records) edit(r, `${cap}/${f}`);
      writeFileSync(file, JSON.stringify(records, null, 2));
    }
  }
  const meta = path.join(dir, "metadata.json");
  writeFileSync(meta, JSON.stringify({ ...JSON.parse(readFileSync(meta, "utf8")), agent_name: agentName, maintainer: "someone else" }, null, 2));
  return dir;
}

/** Every answer of every turn through `edit` (its strings). */
export const everyAnswer =
  (edit: (s: string) => string) =>
  (r: RawRecord): void => {
    for (const t of r.output) t.answer = mapAnswerStrings(t.answer, edit);
  };
