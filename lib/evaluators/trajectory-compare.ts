/**
 * The deterministic trajectory comparison: the agent's tool calls against reference calls.
 * - Pairing: each reference call (in step order) takes the unpaired agent call of the same
 *   name that agrees on most parameters, the nearest step breaking ties.
 * - Tool names: precision (agent calls that pair) and recall (reference calls that pair).
 * - Parameters: precision and recall of key/value pairs over all calls (unpaired calls
 *   count fully against); null when neither side passes any.
 * - Order: of the reference pairs of calls in different steps, the share the agent made in
 *   the same order (its calls paired, and in strictly increasing steps). Calls sharing a
 *   step ran in parallel and are a set, so they constrain nothing; null when the reference
 *   has fewer than two steps.
 * - The score is the mean of the F1s and the order that apply.
 * Values compare as canonical JSON, except that scalars compare as trimmed text (3 = "3").
 */
import type { ToolCallStep } from "../formats/eval-tool-calls";
import { canonicalJson } from "../formats/canonical-json";

export interface PrecisionRecall {
  precision: number;
  recall: number;
  f1: number;
  matched: number;
  actual: number;
  expected: number;
}

export interface ParamDiff {
  matching: string[];
  mismatched: { key: string; expected: unknown; actual: unknown }[];
  missing: string[];
  extra: string[];
}

/** One line of the diagnostic: a reference call with its agent call, or either alone. */
export interface CallPairing {
  name: string;
  expected: { index: number; step: number; params: Record<string, unknown> } | null;
  actual: { index: number; step: number; params: Record<string, unknown> } | null;
  /** Null when one side is missing. */
  params: ParamDiff | null;
}

export interface TrajectoryComparison {
  score: number;
  toolNames: PrecisionRecall;
  params: PrecisionRecall | null;
  order: { score: number; concordant: number; pairs: number } | null;
  /** Same calls (names and parameters), grouped into the same sequence of steps. */
  exact: boolean;
  /** Reference calls in step order (paired or missing), then the agent's unpaired calls. */
  pairs: CallPairing[];
  summary: string;
}

function precisionRecall(matched: number, actual: number, expected: number): PrecisionRecall {
  if (actual === 0 && expected === 0) return { precision: 1, recall: 1, f1: 1, matched, actual, expected };
  const precision = actual ? matched / actual : 0;
  const recall = expected ? matched / expected : 0;
  const f1 = precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1, matched, actual, expected };
}

const isScalar = (v: unknown) => v === null || ["string", "number", "boolean"].includes(typeof v);

export function valuesEqual(a: unknown, b: unknown): boolean {
  if (canonicalJson(a) === canonicalJson(b)) return true;
  return isScalar(a) && isScalar(b) && String(a).trim() === String(b).trim();
}

export function diffParams(expected: Record<string, unknown>, actual: Record<string, unknown>): ParamDiff {
  const d: ParamDiff = { matching: [], mismatched: [], missing: [], extra: [] };
  for (const [k, v] of Object.entries(expected)) {
    if (!(k in actual)) d.missing.push(k);
    else if (valuesEqual(v, actual[k])) d.matching.push(k);
    else d.mismatched.push({ key: k, expected: v, actual: actual[k] });
  }
  for (const k of Object.keys(actual)) if (!(k in expected)) d.extra.push(k);
  return d;
}

/** Dense ranks of step numbers: steps 1, 3, 3, 7 → 0, 1, 1, 2. */
function stepRanks(calls: readonly ToolCallStep[]): number[] {
  const distinct = [...new Set(calls.map((c) => c.step))].sort((a, b) => a - b);
  return calls.map((c) => distinct.indexOf(c.step));
}

export function compareToolCalls(actual: readonly ToolCallStep[], expected: readonly ToolCallStep[]): TrajectoryComparison {
  const rankA = stepRanks(actual);
  const rankE = stepRanks(expected);
  const orderE = expected.map((_, i) => i).sort((a, b) => rankE[a]! - rankE[b]! || a - b);
  const pairOf = new Array<number | null>(expected.length).fill(null);
  const taken = new Set<number>();
  for (const ei of orderE) {
    const e = expected[ei]!;
    let best: number | null = null;
    let bestKey: [number, number] = [-1, 0];
    for (let ai = 0; ai < actual.length; ai++) {
      const a = actual[ai]!;
      if (taken.has(ai) || a.name !== e.name) continue;
      const agree = diffParams(e.params, a.params).matching.length;
      const key: [number, number] = [agree, -Math.abs(rankA[ai]! - rankE[ei]!)];
      if (best === null || key[0] > bestKey[0] || (key[0] === bestKey[0] && key[1] > bestKey[1])) {
        best = ai;
        bestKey = key;
      }
    }
    if (best !== null) {
      pairOf[ei] = best;
      taken.add(best);
    }
  }

  const pairs: CallPairing[] = [];
  let correctParams = 0;
  for (const ei of orderE) {
    const e = expected[ei]!;
    const ai = pairOf[ei];
    const a = ai === null || ai === undefined ? null : actual[ai]!;
    const params = a ? diffParams(e.params, a.params) : null;
    correctParams += params?.matching.length ?? 0;
    pairs.push({
      name: e.name,
      expected: { index: ei, step: e.step, params: e.params },
      actual: a && ai != null ? { index: ai, step: a.step, params: a.params } : null,
      params,
    });
  }
  actual.forEach((a, ai) => {
    if (!taken.has(ai)) pairs.push({ name: a.name, expected: null, actual: { index: ai, step: a.step, params: a.params }, params: null });
  });

  const toolNames = precisionRecall(taken.size, actual.length, expected.length);
  const nParamsA = actual.reduce((n, c) => n + Object.keys(c.params).length, 0);
  const nParamsE = expected.reduce((n, c) => n + Object.keys(c.params).length, 0);
  const params = nParamsA === 0 && nParamsE === 0 ? null : precisionRecall(correctParams, nParamsA, nParamsE);

  let constrained = 0;
  let concordant = 0;
  for (let i = 0; i < expected.length; i++) {
    for (let j = 0; j < expected.length; j++) {
      if (rankE[i]! >= rankE[j]!) continue;
      constrained++;
      const ai = pairOf[i];
      const aj = pairOf[j];
      if (ai != null && aj != null && rankA[ai]! < rankA[aj]!) concordant++;
    }
  }
  const order = constrained === 0 ? null : { score: concordant / constrained, concordant, pairs: constrained };

  const parts = [toolNames.f1, params?.f1, order?.score].filter((x): x is number => x !== undefined);
  const score = parts.reduce((s, x) => s + x, 0) / parts.length;
  const exact = sameSteps(actual, expected);
  return { score, toolNames, params, order, exact, pairs, summary: summarizeComparison(toolNames, params, order, pairs) };
}

function sameSteps(actual: readonly ToolCallStep[], expected: readonly ToolCallStep[]): boolean {
  const groups = (calls: readonly ToolCallStep[]) => {
    const by = new Map<number, string[]>();
    for (const c of calls) by.set(c.step, [...(by.get(c.step) ?? []), canonicalJson({ name: c.name, params: c.params })]);
    return [...by.entries()].sort((a, b) => a[0] - b[0]).map(([, g]) => g.sort().join("\n"));
  };
  const a = groups(actual);
  const e = groups(expected);
  return a.length === e.length && a.every((g, i) => g === e[i]);
}

const pct = (x: number) => x.toFixed(2);

function summarizeComparison(names: PrecisionRecall, params: PrecisionRecall | null, order: TrajectoryComparison["order"], pairs: CallPairing[]): string {
  const out = [`tools: ${names.matched} of ${names.expected} reference calls made, ${names.matched} of ${names.actual} agent calls expected (F1 ${pct(names.f1)})`];
  if (params) out.push(`parameters: ${params.matched} right of ${params.expected} expected and ${params.actual} given (F1 ${pct(params.f1)})`);
  if (order) out.push(`order: ${order.concordant} of ${order.pairs} step dependencies kept`);
  const missing = pairs.filter((p) => !p.actual).map((p) => p.name);
  const extra = pairs.filter((p) => !p.expected).map((p) => p.name);
  const wrong = pairs.flatMap((p) => (p.params?.mismatched ?? []).map((m) => `${p.name}.${m.key}`));
  if (missing.length) out.push(`missing: ${missing.join(", ")}`);
  if (extra.length) out.push(`extra: ${extra.join(", ")}`);
  if (wrong.length) out.push(`wrong values: ${wrong.join(", ")}`);
  return out.join("; ");
}

/** Calls made one after another (VAKRA's `{name, arguments}` lists): steps 1, 2, 3, … */
export function sequentialSteps(calls: readonly { name: string; arguments?: Record<string, unknown> | null }[]): ToolCallStep[] {
  return calls.map((c, i) => ({ step: i + 1, name: c.name, params: c.arguments ?? {} }));
}
