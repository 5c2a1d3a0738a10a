/**
 * The public half of a stored trajectory diagnostic, shared by the item page (getItem) and the
 * item list's reasons (item-reason.ts): what the agent called is its own; what was expected is
 * ground truth, kept only where the benchmark shows it.
 */
import type { CallPairing } from "../evaluators/trajectory-compare";
import type { TrajectoryDiagnostic } from "../scoring/item-result";
import type { TrajectoryCallView, TrajectoryView } from "./types";

/** A parameter key that reads as a name in the tool's schema, which is safe to name where the value is not. */
const SCHEMA_KEY = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

/**
 * The public half of a trajectory diagnostic: per agent call, whether it was expected and which
 * of its parameters differed, went missing or were extra. Expected tool names and values are
 * ground truth: an expected call the agent did not make is only counted, and the expected side
 * is kept only when `open`. Stored pairs are read defensively (rows from before they were kept
 * have none).
 */
export function trajectoryView(t: TrajectoryDiagnostic, open: boolean): TrajectoryView {
  const { summary, pairs, ...numbers } = t;
  const stored: CallPairing[] = Array.isArray(pairs) ? pairs.filter((p) => p && typeof p === "object" && typeof p.name === "string") : [];
  const made: (TrajectoryCallView & { at: number })[] = [];
  const notMade: TrajectoryCallView[] = [];
  for (const p of stored) {
    const expected = open && p.expected ? { name: p.name, arguments: p.expected.params ?? {} } : null;
    if (!p.actual) {
      notMade.push({ call: null, verdict: "not_made", differed: [], missing: [], extra: [], expected });
      continue;
    }
    const call = { index: Number(p.actual.index) || 0, name: p.name, arguments: p.actual.params ?? {} };
    if (!p.expected || !p.params) {
      made.push({ at: call.index, call, verdict: "not_expected", differed: [], missing: [], extra: [], expected: null });
      continue;
    }
    const differed = (Array.isArray(p.params.mismatched) ? p.params.mismatched : []).map((m) => String(m?.key));
    const missing = strings(p.params.missing);
    const extra = strings(p.params.extra);
    const same = differed.length === 0 && missing.length === 0 && extra.length === 0;
    made.push({ at: call.index, call, verdict: same ? "as_expected" : "differed", differed, missing: open ? missing : missing.filter((k) => SCHEMA_KEY.test(k)), extra, expected });
  }
  made.sort((a, b) => a.at - b.at);
  const calls = Array.isArray(pairs) ? [...made.map(({ at: _at, ...c }) => c), ...(open ? notMade : [])] : null;
  return { ...numbers, summary: open ? summary : null, calls, notMade: notMade.length };
}
