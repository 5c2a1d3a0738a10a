/**
 * Reads a verdict out of a model's reply: the judge's own verdict, never one it quoted from
 * the submission (see `judge-reply.ts`). Reasoning and echoed data blocks are dropped first;
 * then, in order: the last JSON object with a verdict (fenced or bare), the last
 * `verdict:`-style line, the last `<conclusion>` tag, or a reply that is nothing but a
 * label. A candidate that also occurs in the prompt's data is skipped. A label merely
 * mentioned in passing never counts: guessing is how a preamble like "…would say yes… no"
 * turns into a pass.
 */
import type { DataContext } from "./data-blocks";
import { UnusableReplyError } from "./grader";
import { ownText, quotedFrom, topLevelObjects } from "./judge-reply";

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

export function parseVerdict(task: VerdictTask, reply: string, data?: DataContext): ParsedVerdict {
  const text = ownText(reply);
  const quoted = quotedFrom(data);
  const objects = topLevelObjects(text);
  for (let k = objects.length - 1; k >= 0; k--) {
    const { value: obj, raw } = objects[k]!;
    if (quoted(raw, obj)) continue;
    for (const key of ["verdict", "label", "score", "answer", "result", "grounded", "correct"]) {
      if (!(key in obj)) continue;
      const pass = labelOf(task, obj[key]);
      if (pass !== undefined) return { pass, label: String(obj[key]), reason: String(obj.reason ?? obj.explanation ?? obj.rationale ?? "") };
    }
  }
  // `Verdict: no`, `**Verdict:** **Incorrect**`, `Final answer = grounded.`
  const line = /^\s*(?:\*\*)?(?:final\s+)?(?:verdict|label|answer|decision|conclusion)(?:\*\*)?\s*[:=-]\s*(?:\*\*\s*)*["'`]?([A-Za-z_ -]+?|[01])["'`]?(?:\*\*)*\s*\.?\s*$/gim;
  let last: RegExpExecArray | null = null;
  for (let m = line.exec(text); m; m = line.exec(text)) if (!quoted(m[0]) && labelOf(task, m[1]) !== undefined) last = m;
  if (last) return { pass: labelOf(task, last[1])!, label: last[1]!.trim(), reason: text.slice(0, 300) };
  const tags = [...text.matchAll(/<(conclusion|verdict|answer)>\s*([^<]+?)\s*<\/\1>/gi)].filter((t) => !quoted(t[0]) && labelOf(task, t[2]) !== undefined);
  const tag = tags[tags.length - 1];
  if (tag) return { pass: labelOf(task, tag[2])!, label: tag[2]!, reason: text.slice(0, 300) };
  // A reply that is nothing but a label is the judge's own word, even when the answer was that word too.
  const bare = labelOf(task, text);
  if (bare !== undefined) return { pass: bare, label: text, reason: "" };
  throw new UnusableReplyError(`no ${task} verdict found in judge reply: ${JSON.stringify(text.slice(0, 200))}`);
}
