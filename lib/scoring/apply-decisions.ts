/**
 * A maintainer's decisions applied to a stored item result, without asking any judge: the
 * decided grade replaces the panel's, and the item's score follows from its stored verdicts as
 * scoring decided it (waterfall.ts `settleTurn`). A disputed correctness grade had its
 * groundedness asked ahead (waterfall.ts), so a correctness decided a pass settles too.
 *
 * Waterfall items, and qa and trajectory items (one grade is the item's score), are settled
 * here. A report item's score is a tree of fields and metrics: a decision on one of its fields
 * is kept with the item and used by its next scoring (a rescore), not settled here.
 */
import { decidedGrade, type Decision, type PanelRecord } from "../judges/panel-grader";
import { waterfallBucket, type ItemResult, type WaterfallItemResult } from "./item-result";
import type { Verdict } from "./verdict";
import { settleTurn } from "./waterfall";

/** The item with the decisions applied, or null when none applies to it (or it cannot be settled in place). */
export function applyDecisions(item: ItemResult, decisions: ReadonlyMap<string, Decision>): ItemResult | null {
  const pending = (item.panel ?? []).filter((r) => !r.decided && decisions.has(r.key));
  if (pending.length === 0) return null;
  const panel: PanelRecord[] = (item.panel ?? []).map((r) => {
    const d = !r.decided ? decisions.get(r.key) : undefined;
    return d ? { ...r, decided: d } : r;
  });
  if (item.scorer === "waterfall") return settleWaterfall(item, decisions, panel);
  if (item.scorer === "report") return null;
  const record = pending[0]!;
  const d = decisions.get(record.key)!;
  const g = decidedGrade(d);
  return {
    ...item,
    panel,
    score: d.score,
    status: "scored",
    bucket: "evaluated",
    stage: item.scorer,
    reason: g.reason,
    detail: item.detail,
    evaluation: item.evaluation ? { ...item.evaluation, status: "scored", score: d.score, reason: g.reason, error: null } : null,
  };
}

function decidedVerdict(v: Verdict, d: Decision): Verdict {
  const g = decidedGrade(d);
  return { ...v, outcome: d.outcome === "pass" ? "pass" : "fail", score: d.score, reason: g.reason, panel: { ...v.panel!, disputed: v.panel!.disputed, decided: true } };
}

function settleWaterfall(item: WaterfallItemResult, decisions: ReadonlyMap<string, Decision>, panel: PanelRecord[]): WaterfallItemResult {
  const verdicts = item.verdicts.map((v) => {
    const d = v.panel && !v.panel.decided ? decisions.get(v.panel.key) : undefined;
    return d ? decidedVerdict(v, d) : v;
  });
  const turns = item.turns.map((t) => {
    if (t.status === "missing_turn") return t;
    const settled = settleTurn(verdicts.filter((v) => v.turnId === t.turnId));
    return { ...t, ...settled };
  });
  const last = turns[turns.length - 1]!;
  const lastVerdicts = verdicts.filter((v) => v.turnId === last.turnId);
  // As the waterfall scorer explains an item: by the verdict that decided its last scored turn.
  const deciding = lastVerdicts.find((v) => v.stage === last.stage && v.outcome !== "skipped");
  const settled: WaterfallItemResult = {
    ...item,
    panel,
    verdicts,
    turns,
    score: turns.reduce((s, t) => s + t.score, 0) / turns.length,
    status: turns.some((t) => t.status === "judge_error") ? "judge_error" : "scored",
    stage: last.stage,
    reason: last.status === "missing_turn" ? item.reason : (deciding?.reason ?? ""),
    detail: last.status === "missing_turn" ? item.detail : (deciding?.detail ?? null),
  };
  return { ...settled, bucket: waterfallBucket(settled) };
}
