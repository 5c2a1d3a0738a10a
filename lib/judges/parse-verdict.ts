/**
 * Reads a verdict out of a model's reply: the judge's own verdict, never one it quoted from
 * the submission (see `judge-reply.ts`). Reasoning and echoed data blocks are dropped first;
 * then every verdict the reply states is a candidate: a JSON object with a verdict (fenced or
 * bare), a `verdict:`-style line, a `<conclusion>` tag, or a reply that is nothing but a
 * label. Candidates must agree (`agreedCandidate`): a reply with two different verdicts is
 * ambiguous, however they are spelled. A label merely mentioned in passing never counts:
 * guessing is how a preamble like "…would say yes… no" turns into a pass.
 */
import type { DataContext } from "./data-blocks";
import { UnusableReplyError } from "./grader";
import { agreedCandidate, ownText, quotedFrom, topLevelObjects, type Candidate } from "./judge-reply";

export { stripReasoning } from "./judge-reply";

export type VerdictTask = "correctness" | "groundedness";

export interface ParsedVerdict {
  pass: boolean;
  label: string;
  reason: string;
}

const LABELS: Record<VerdictTask, Record<string, boolean>> = {
  correctness: { correct: true, incorrect: false, yes: true, no: false, true: true, false: false, "1": true, "0": false, right: true, wrong: false },
  groundedness: {
    grounded: true,
    partially_grounded: false,
    partial: false,
    ungrounded: false,
    not_grounded: false,
    yes: true,
    no: false,
    unsure: false,
    true: true,
    false: false,
    "1": true,
    "0": false,
  },
};

function labelOf(task: VerdictTask, raw: unknown): boolean | undefined {
  if (typeof raw === "boolean") return raw;
  if (typeof raw === "number") return raw === 1 ? true : raw === 0 ? false : undefined;
  if (typeof raw !== "string") return undefined;
  const key = raw.trim().toLowerCase().replace(/[\s-]+/g, "_").replace(/[.!"'`*]/g, "");
  return LABELS[task][key];
}

type Found = { label: string; reason: string | null };

export function parseVerdict(task: VerdictTask, reply: string, data?: DataContext): ParsedVerdict {
  const text = ownText(reply);
  const quoted = quotedFrom(data);
  const candidates: Candidate<Found>[] = [];
  const add = (raw: unknown, label: string, reason: string | null, isQuoted: boolean) => {
    const pass = labelOf(task, raw);
    if (pass !== undefined) candidates.push({ value: pass ? 1 : 0, key: pass ? "pass" : "fail", label, quoted: isQuoted, found: { label, reason } });
  };
  for (const { value: obj, raw } of topLevelObjects(text)) {
    // An object states one verdict: under the first verdict key it has (in this order) with a label.
    const key = VERDICT_KEYS.find((k) => k in obj && labelOf(task, obj[k]) !== undefined);
    if (key) add(obj[key], String(obj[key]), String(obj.reason ?? obj.explanation ?? obj.rationale ?? ""), quoted(raw, obj));
  }
  // `Verdict: no`, `**Verdict:** **Incorrect**`, `Final answer = grounded.`
  const line = /^\s*(?:\*\*)?(?:final\s+)?(?:verdict|label|answer|decision|conclusion)(?:\*\*)?\s*[:=-]\s*(?:\*\*\s*)*["'`]?([A-Za-z_ -]+?|[01])["'`]?(?:\*\*)*\s*\.?\s*$/gim;
  for (const m of text.matchAll(line)) add(m[1], m[1]!.trim(), null, quoted(m[0]));
  for (const t of text.matchAll(/<(conclusion|verdict|answer)>\s*([^<]+?)\s*<\/\1>/gi)) add(t[2], t[2]!, null, quoted(t[0]));
  // A reply that is nothing but a label is the judge's own word, even when the answer was that word too.
  if (candidates.length === 0) add(text, text, "", false);
  const verdict = agreedCandidate(candidates, "verdict");
  if (!verdict) throw new UnusableReplyError(`no ${task} verdict found in judge reply: ${JSON.stringify(text.slice(0, 200))}`);
  // The candidates agree: the reason is the last one the judge gave in a JSON object, if any.
  const reason = candidates.filter((c) => !c.quoted && c.found.reason !== null).at(-1)?.found.reason;
  return { pass: verdict.value === 1, label: verdict.found.label, reason: reason ?? text.slice(0, 300) };
}

const VERDICT_KEYS = ["verdict", "label", "score", "answer", "result", "grounded", "correct"];
