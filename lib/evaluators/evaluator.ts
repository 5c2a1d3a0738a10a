/**
 * The evaluator protocol: an item routed to it becomes an outcome. `evaluateItem` owns what
 * is common: routing (an item not marked for the evaluator is skipped, with the reason),
 * timing, and turning any throw (a judge that gave up, a bug) into an `error` item.
 */
import type { AgentOutput, EvalItem, EvalKind } from "../formats/eval-dataset";
import { resultFor, type EvalItemResult, type Outcome } from "./result";
import { isRoutedTo } from "./routing";

export interface Evaluator {
  /** Its name in the config. */
  readonly name: string;
  readonly kind: EvalKind;
  /** The id items name in `evaluation_method` to be routed here. */
  readonly methodId: string;
  /** The judge it uses: `rules` or `openai:<model>`. */
  readonly judgeId: string;
  /** Scores an item routed to it. May throw; `evaluateItem` makes that an error item. */
  score(item: EvalItem): Promise<Outcome>;
}

export async function evaluateItem(evaluator: Evaluator, item: EvalItem, now: () => number = () => performance.now()): Promise<EvalItemResult> {
  if (!isRoutedTo(item, evaluator.methodId)) {
    return resultFor(item, evaluator, { status: "skipped", reasoning: `Skipped: not marked for ${evaluator.methodId} evaluation` }, 0);
  }
  const started = now();
  let outcome: Outcome;
  try {
    outcome = await evaluator.score(item);
    if (outcome.status === "scored" && !(Number.isFinite(outcome.score) && outcome.score >= 0 && outcome.score <= 1)) {
      outcome = { status: "error", error: `the evaluator produced the score ${outcome.score}, outside [0, 1]`, reason: "the evaluator produced a score outside [0, 1]", judge: outcome.judge };
    }
  } catch (err) {
    outcome = { status: "error", error: err instanceof Error ? err.message : String(err), judge: evaluator.judgeId };
  }
  return resultFor(item, evaluator, outcome, Math.max(0, now() - started));
}

/**
 * What an output lacks that an evaluator of this kind needs, or null. Such an item is the
 * agent's failure (a leaderboard scores it 0), not the evaluator's error.
 */
export function outputGap(kind: EvalKind, output: AgentOutput): string | null {
  if (kind === "qa" && output.answer === null) return "no generated_answer";
  if (kind === "trajectory" && output.toolCalls === null && output.events === null) return "neither tool_calls nor a trajectory";
  if (kind === "report" && output.report === null) return "no report (report or report_path)";
  if (kind === "report" && output.report && !output.report.ok) return output.report.error;
  return null;
}
