/**
 * The item list's reason for an answer judged wrong: the agent's side of the first divergence
 * from the reference, in the agent's call order (the call it made, the value it gave), instead
 * of the judge's count of reference values the answer lacks, the same on every row. Built from
 * the stored trajectory diagnostic through its public view (trajectory-view.ts), so it never
 * quotes a private reference: expected values are never named, expected tools only where the
 * benchmark shows its ground truth.
 */
import type { TrajectoryDiagnostic } from "../scoring/item-result";
import type { TrajectoryCallView } from "./types";
import { trajectoryView } from "./trajectory-view";

/** How much of one value the agent gave is quoted. */
const VALUE_CHARS = 60;

function quoted(value: unknown): string {
  let s: string;
  try {
    s = typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    s = String(value);
  }
  return s.length > VALUE_CHARS ? `${s.slice(0, VALUE_CHARS)}…` : s;
}

function argument(call: NonNullable<TrajectoryCallView["call"]>, key: string): unknown {
  const args = call.arguments;
  return args && typeof args === "object" && !Array.isArray(args) ? (args as Record<string, unknown>)[key] : undefined;
}

/** "call 2 `aggregate_data`: the value of parameter `operation` differed (the agent gave "max")". */
function callDivergence(c: TrajectoryCallView): string | null {
  if (!c.call || c.verdict === "as_expected" || c.verdict === "not_made") return null;
  const at = `call ${c.call.index + 1} \`${c.call.name}\``;
  if (c.verdict === "not_expected") return `${at} was not expected: no expected call pairs with it`;
  const [differed] = c.differed;
  if (differed !== undefined) return `${at}: the value of parameter \`${differed}\` differed (the agent gave ${quoted(argument(c.call, differed))})`;
  const [extra] = c.extra;
  if (extra !== undefined) return `${at}: parameter \`${extra}\` was not expected (the agent gave ${quoted(argument(c.call, extra))})`;
  const [missing] = c.missing;
  return missing !== undefined ? `${at}: parameter \`${missing}\` was left out` : `${at}: its parameters differed`;
}

/**
 * The first divergence, or null when the diagnostic holds no paired calls to tell one by (rows
 * stored before calls were paired). `answer` is the agent's answer as the list shows it.
 */
export function divergenceReason(diagnostic: TrajectoryDiagnostic, answer: string, open: boolean): string | null {
  const view = trajectoryView(diagnostic, open);
  if (!view.calls) return null;
  for (const c of view.calls) {
    const said = callDivergence(c);
    if (said) return `First divergence: ${said}.`;
  }
  if (view.notMade > 0) {
    const made = view.calls.filter((c) => c.call).length;
    const which = open ? view.calls.find((c) => c.verdict === "not_made" && c.expected)?.expected?.name : undefined;
    const missed = view.notMade === 1 ? (which ? `the expected call \`${which}\` was not made` : "an expected call was not made") : `${view.notMade} expected calls were not made`;
    return `First divergence: ${made === 0 ? "the agent made no tool call" : `the agent's ${made} call${made === 1 ? "" : "s"} matched, but ${missed}`}.`;
  }
  return `The agent's calls match the reference's; its answer${answer ? ` ${quoted(answer)}` : ""} is not the reference answer.`;
}

/** A stored diagnostic read from JSON text in the database: null unless it has the expected shape. */
export function parseDiagnostic(raw: unknown): TrajectoryDiagnostic | null {
  if (typeof raw !== "string" || raw === "" || raw === "null") return null;
  try {
    const v = JSON.parse(raw) as unknown;
    return v && typeof v === "object" && !Array.isArray(v) && Array.isArray((v as TrajectoryDiagnostic).pairs) ? (v as TrajectoryDiagnostic) : null;
  } catch {
    return null;
  }
}
