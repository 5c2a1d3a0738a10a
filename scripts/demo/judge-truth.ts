/**
 * What the demo generator knows about its judges (issue 29, docs/judges.md "Panels" and
 * "Calibration"), from its own truth rather than from running a judge:
 *
 * - The panel's disagreements. The demo's panel is `rules` (primary) and `literal`. A
 *   correctness grade is asked only of a turn whose ground-truth tool responses the agent did
 *   not reproduce (it fabricated, or followed another plan). Of those, the two judges
 *   disagree exactly where the answer states the one true value in a sentence: rules passes
 *   it (answers keep the value verbatim, wording.ts), literal wants the value alone. The
 *   generator wrote every answer, so it counts them as it writes: per agent and capability,
 *   and as distinct requests (question, answer, reference), the rows /admin/disputes holds.
 * - A calibration set whose labels are right by construction: for correctness, the
 *   question's true value in one of its sentences passes and another dialogue's value fails;
 *   for groundedness, a true answer with the responses it was computed from passes, and with
 *   another dialogue's responses that state none of its values fails.
 */
import { canonicalJson } from "../../lib/formats/canonical-json";
import type { AnswerValue } from "../../lib/formats/dialogue";
import { unit } from "./agents";

/** Who labelled the demo's calibration cases. */
export const DEMO_LABELLER = "demo generator (truth by construction)";

/** The demo's judge: a panel whose first judge's grade stands, so its scores are the rules judge's. */
export const DEMO_PANEL = { rule: "primary" as const, judges: [{ kind: "rules" as const }, { kind: "literal" as const }] };

/** A value as one atom, or undefined when it is several (a list answer) or none. */
export function singleAtom(v: AnswerValue): string | undefined {
  const atoms: unknown[] = [];
  const walk = (x: unknown) => {
    if (Array.isArray(x)) x.forEach(walk);
    else if (x !== null && x !== undefined && !(typeof x === "string" && x.trim() === "")) atoms.push(x);
  };
  walk(v);
  return atoms.length === 1 ? String(atoms[0]) : undefined;
}

/** The answer is the value alone ("3", "3."): what the literal judge passes. */
export const isBare = (answer: string, value: string) => answer.trim().replace(/\.$/, "").trim() === value;

/** Every ground-truth response found among the agent's: the exact stage passes, and no judge is asked. */
export function reproduces(groundTruth: readonly unknown[], predicted: readonly unknown[]): boolean {
  const seen = new Set(predicted.map(canonicalJson));
  return groundTruth.every((r) => seen.has(canonicalJson(r)));
}

export interface CorrectnessAsked {
  agent: string;
  capability: string;
  question: string;
  /** The answer as the agent wrote it (a string), or a structured answer. */
  answer: string | AnswerValue;
  /** The true value, as the reference. */
  truth: AnswerValue;
  /** The value the answer states, when it is a sentence built from one. */
  stated?: string;
}

/** The panel's disagreements the generator wrote, counted as it wrote them. */
export class PanelTally {
  private readonly asked = new Map<string, Map<string, { asked: number; disputed: number }>>();
  private readonly keys = new Set<string>();
  private readonly requests = new Set<string>();

  /** A correctness grade the waterfall will ask of the panel. */
  add(c: CorrectnessAsked): void {
    const byCap = this.asked.get(c.agent) ?? new Map<string, { asked: number; disputed: number }>();
    this.asked.set(c.agent, byCap);
    const n = byCap.get(c.capability) ?? { asked: 0, disputed: 0 };
    byCap.set(c.capability, n);
    n.asked++;
    const key = JSON.stringify([c.question, c.answer, c.truth]);
    this.requests.add(key);
    const truth = singleAtom(c.truth);
    // Rules passes a sentence stating the one true value; literal passes it only bare. A list
    // answer is compared value by value by both, and a sentence of another value fails both.
    if (typeof c.answer === "string" && truth !== undefined && c.stated === truth && !isBare(c.answer, truth)) {
      n.disputed++;
      this.keys.add(key);
    }
  }

  summary() {
    const agents = Object.fromEntries(
      [...this.asked].sort(([a], [b]) => a.localeCompare(b)).map(([agent, byCap]) => [agent, Object.fromEntries([...byCap].sort(([a], [b]) => a.localeCompare(b)).map(([cap, n]) => [cap, n]))]),
    );
    let asked = 0;
    let disputed = 0;
    for (const byCap of this.asked.values()) for (const n of byCap.values()) [asked, disputed] = [asked + n.asked, disputed + n.disputed];
    return {
      judges: "panel:primary(rules,literal)",
      correctnessGradesAsked: asked,
      disputedGrades: disputed,
      disputedShare: asked ? Number((disputed / asked).toFixed(4)) : 0,
      distinctRequests: this.requests.size,
      distinctDisputedRequests: this.keys.size,
      byAgent: agents,
    };
  }
}

/** One dialogue's last turn, as the calibration set reads it. */
export interface TruthTurn {
  id: string;
  capability: string;
  question: string;
  truth: AnswerValue;
  responses: unknown[];
  reply: (v: string) => string[];
}

export interface DemoCalibrationCase {
  id: string;
  stage: "correctness" | "groundedness";
  capability: string;
  question: string;
  reference?: AnswerValue;
  answer: string;
  evidence?: string[];
  label: "pass" | "fail";
  labelledBy: string;
}

/** Sizes of every list in a response: counting rows is reading the evidence, so a count equal to one is there. */
function listSizes(v: unknown, out = new Set<number>()): Set<number> {
  if (Array.isArray(v)) {
    out.add(v.length);
    v.forEach((x) => listSizes(x, out));
  } else if (v && typeof v === "object") Object.values(v).forEach((x) => listSizes(x, out));
  return out;
}

/** Whether responses state a value anywhere: its text (case aside), or a list of that many rows. */
function states(responses: readonly unknown[], value: string): boolean {
  const text = responses.map((r) => JSON.stringify(r)).join("\n").toLowerCase();
  if (text.includes(value.toLowerCase())) return true;
  const n = Number(value);
  return Number.isInteger(n) && responses.some((r) => listSizes(r).has(n));
}

/**
 * The demo's calibration cases: per dialogue with one true value, a correctness case and a
 * groundedness case, passing or failing in turn (by a hash of the dialogue, so no draw of the
 * agents' streams moves). A failing correctness case states the value of another dialogue of
 * the same capability, one that differs; a failing groundedness case pairs the true answer
 * with another capability's responses that state none of it.
 */
export function calibrationCases(turns: readonly TruthTurn[]): DemoCalibrationCase[] {
  const cases: DemoCalibrationCase[] = [];
  const single = turns.flatMap((t) => {
    const v = singleAtom(t.truth);
    return v === undefined ? [] : [{ ...t, value: v }];
  });
  for (const [i, t] of single.entries()) {
    const style = Math.floor(unit(`style\0${t.id}`) * 3);
    const sentence = (v: string) => {
      const ways = t.reply(v);
      return ways[style % ways.length]!;
    };
    const truthful = sentence(t.value);
    const base = { capability: t.capability, question: t.question, labelledBy: DEMO_LABELLER };
    // Correctness: pass on even dialogues, fail on odd ones, with a value that is not the truth.
    if (i % 2 === 0) cases.push({ id: `${t.id}-correct`, stage: "correctness", ...base, reference: t.truth, answer: truthful, label: "pass" });
    else {
      const wrong = nearest(single, i, (o) => o.capability === t.capability && o.value !== t.value && !o.value.includes(t.value) && !t.value.includes(o.value));
      if (wrong) cases.push({ id: `${t.id}-incorrect`, stage: "correctness", ...base, reference: t.truth, answer: sentence(wrong.value), label: "fail" });
    }
    // Groundedness: the other way round, so each dialogue gives one passing and one failing case.
    if (i % 2 === 1) cases.push({ id: `${t.id}-grounded`, stage: "groundedness", ...base, answer: truthful, evidence: t.responses.map(responseString), label: "pass" });
    else {
      const other = nearest(single, i, (o) => o.capability !== t.capability && o.responses.length > 0 && !states(o.responses, t.value));
      if (other) cases.push({ id: `${t.id}-ungrounded`, stage: "groundedness", ...base, answer: truthful, evidence: other.responses.map(responseString), label: "fail" });
    }
  }
  return cases;
}

const responseString = (r: unknown) => (typeof r === "string" ? r : JSON.stringify(r));

/** The first item after `i` (cyclically) that `ok` takes. */
function nearest<T>(xs: readonly T[], i: number, ok: (x: T) => boolean): T | undefined {
  for (let k = 1; k < xs.length; k++) {
    const x = xs[(i + k) % xs.length]!;
    if (ok(x)) return x;
  }
  return undefined;
}
