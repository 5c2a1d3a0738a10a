/**
 * Reads a verdict out of a model's reply. Reasoning blocks are dropped first; then, in
 * order: a JSON object (fenced or bare), a `verdict:`-style line, a `<conclusion>` tag, or a
 * reply that is nothing but a label. A label merely mentioned in passing never counts:
 * guessing is how a preamble like "…would say yes… no" turns into a pass.
 */
import { UnusableReplyError } from "./grader";

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

export function stripReasoning(text: string): string {
  return text
    .replace(/<(think|thinking|reasoning|reflection)>[\s\S]*?<\/\1>/gi, "")
    .replace(/^[\s\S]*?<\/(think|thinking|reasoning)>/i, "")
    .trim();
}

function labelOf(task: VerdictTask, raw: unknown): boolean | undefined {
  if (typeof raw === "boolean") return raw;
  if (typeof raw === "number") return raw === 1 ? true : raw === 0 ? false : undefined;
  if (typeof raw !== "string") return undefined;
  const key = raw.trim().toLowerCase().replace(/[\s-]+/g, "_").replace(/[.!"'`*]/g, "");
  return LABELS[task][key];
}

export function parseVerdict(task: VerdictTask, reply: string): ParsedVerdict {
  const text = stripReasoning(reply);
  for (const obj of jsonObjects(text)) {
    for (const key of ["verdict", "label", "score", "answer", "result", "grounded", "correct"]) {
      if (!(key in obj)) continue;
      const pass = labelOf(task, obj[key]);
      if (pass !== undefined) return { pass, label: String(obj[key]), reason: String(obj.reason ?? obj.explanation ?? obj.rationale ?? "") };
    }
  }
  // `Verdict: no`, `**Verdict:** **Incorrect**`, `Final answer = grounded.`
  const line = /^\s*(?:\*\*)?(?:final\s+)?(?:verdict|label|answer|decision|conclusion)(?:\*\*)?\s*[:=-]\s*(?:\*\*\s*)*["'`]?([A-Za-z_ -]+?|[01])["'`]?(?:\*\*)*\s*\.?\s*$/gim;
  let last: RegExpExecArray | null = null;
  for (let m = line.exec(text); m; m = line.exec(text)) last = m;
  if (last) {
    const pass = labelOf(task, last[1]);
    if (pass !== undefined) return { pass, label: last[1]!.trim(), reason: text.slice(0, 300) };
  }
  const tag = /<(conclusion|verdict|answer)>\s*([^<]+?)\s*<\/\1>/i.exec(text);
  if (tag) {
    const pass = labelOf(task, tag[2]);
    if (pass !== undefined) return { pass, label: tag[2]!, reason: text.slice(0, 300) };
  }
  const bare = labelOf(task, text);
  if (bare !== undefined) return { pass: bare, label: text, reason: "" };
  throw new UnusableReplyError(`no ${task} verdict found in judge reply: ${JSON.stringify(text.slice(0, 200))}`);
}

/** Balanced `{…}` objects in the text that parse as JSON, fenced ones included. */
export function* jsonObjects(text: string): Generator<Record<string, unknown>> {
  for (let start = text.indexOf("{"); start >= 0; start = text.indexOf("{", start + 1)) {
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (c === "\\") i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === "{") depth++;
      else if (c === "}" && --depth === 0) {
        try {
          const v: unknown = JSON.parse(text.slice(start, i + 1));
          if (v && typeof v === "object" && !Array.isArray(v)) yield v as Record<string, unknown>;
        } catch {
          // not JSON: keep scanning
        }
        break;
      }
    }
  }
}
