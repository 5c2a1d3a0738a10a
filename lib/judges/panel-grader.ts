/**
 * A panel of judges behind the one grader port (docs/judges.md "Panels"): every grade request
 * is asked of each member (each through its own grade cache key), and the panel's grade
 * follows a stated rule. Field discovery maps fields rather than grading them: it is asked of
 * the first judge only.
 *
 * - `primary`: the first judge's grade stands (unjudged if it could not judge; the others do
 *   not stand in for it).
 * - `majority` (three judges): the outcome two judged members share (pass/fail), or the median
 *   of three judged scores; with one member unjudged, the two others' outcome (or mean score)
 *   when they agree, and unjudged when they disagree (a 1-1-unjudged split): such a grade is
 *   disputed and waits for a maintainer. Fewer than two judged members: unjudged.
 *
 * Members disagree (the grade is *disputed*) when two judged members give different outcomes
 * (pass/fail), or judged scores at least DISPUTE_SPREAD apart (graded stages). A member that
 * could not judge is no disagreement: the record names it.
 *
 * A maintainer's decision (`decisions`) is consulted before the judges, by the request's
 * `decisionKey`: a decided grade is the maintainer's and says so; the members are not asked.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { gradeKey } from "./grade-cache";
import { gradePrompt, promptHashOf } from "./grade-prompt";
import { gradeSafely, unjudged, type Grade, type GradeKind, type GradeOutcome, type GradeRequest, type Grader } from "./grader";

export type PanelRule = "primary" | "majority";

/** Graded stages: members at least this far apart disagree (0 vs 0.5 does, 0.3 vs 0.7 does not). */
export const DISPUTE_SPREAD = 0.5;

/** What the maintainer is named as in a decided grade's key: the grade cache's key form, with the maintainer as the judge. */
export const MAINTAINER_MODEL = "maintainer";

/** A maintainer's decision on one grade request: pass/fail, or a score for graded stages. */
export interface Decision {
  outcome: "pass" | "fail" | "scored";
  score: number;
}

/** Where the panel finds decisions (the database, in lib/submissions). */
export interface DecisionLookup {
  get(key: string): Promise<Decision | undefined>;
}

/** One member's grade as an item keeps it: `detail` is private (it may quote the reference). */
export interface MemberGrade {
  judge: string;
  outcome: GradeOutcome;
  score: number | null;
  reason: string;
  detail: string | null;
  cacheHit: boolean;
}

/** What was asked, for the maintainer who adjudicates (private: it holds the reference). Kept only on disputed grades. */
export interface DisputedRequest {
  question: string | null;
  answer: string;
  reference: string | null;
  evidence: string[] | null;
  field: string | null;
}

/** One panel grade of an item: each member's grade, whether they disagreed, and a decision if one was made. */
export interface PanelRecord {
  /** `decisionKey` of the request: the same request from any submission has the same key. */
  key: string;
  kind: GradeKind;
  rule: PanelRule;
  members: MemberGrade[];
  disputed: boolean;
  /** Members that could not judge (not a disagreement). */
  unjudged: string[];
  /** The grade the rule gave. */
  outcome: GradeOutcome;
  score: number | null;
  /** Set when a maintainer decided this request: the grade is the decision. */
  decided: Decision | null;
  /** Only on disputed grades. */
  request?: DisputedRequest;
}

/**
 * The key of a grade request whoever judges it: the grade cache's key (grade-cache.ts
 * `gradeKey`) of the request's exact prompt, with the maintainer as the model. The prompt holds
 * the question, the answer and the reference (or evidence), so the same request from another
 * submission has the same key.
 */
export function decisionKey(req: GradeRequest): string {
  return gradeKey(req.kind, MAINTAINER_MODEL, promptHashOf(gradePrompt(req, MAINTAINER_MODEL)));
}

const current = new AsyncLocalStorage<PanelRecord[]>();

/** Runs one item's scoring and returns the panel grades it asked for (each key once, in the order first asked). */
export async function withPanelLog<T>(run: () => Promise<T>): Promise<{ value: T; panel: PanelRecord[] }> {
  const log: PanelRecord[] = [];
  const value = await current.run(log, run);
  const seen = new Set<string>();
  return { value, panel: log.filter((r) => !seen.has(r.key) && seen.add(r.key)) };
}

const isPassFail = (kind: GradeKind) => kind === "correctness" || kind === "groundedness";

/** Whether judged members disagree under the stated rule (unjudged members are left out). */
export function membersDisagree(kind: GradeKind, members: readonly Pick<MemberGrade, "outcome" | "score">[]): boolean {
  const judged = members.filter((m) => m.outcome !== "unjudged");
  if (judged.length < 2) return false;
  if (isPassFail(kind)) return new Set(judged.map((m) => m.outcome)).size > 1;
  const scores = judged.map((m) => m.score ?? 0);
  return Math.max(...scores) - Math.min(...scores) >= DISPUTE_SPREAD;
}

/** The panel's grade by its rule: the index of the member whose grade stands, or a grade of the panel's own. */
function byRule(kind: GradeKind, rule: PanelRule, grades: readonly Grade[], id: string): Grade {
  if (rule === "primary") return grades[0]!;
  const judged = grades.filter((g) => g.outcome !== "unjudged");
  if (isPassFail(kind)) {
    for (const outcome of ["pass", "fail"] as const) {
      const agreeing = judged.filter((g) => g.outcome === outcome);
      if (agreeing.length >= 2) return { ...agreeing[0]!, reason: `${agreeing[0]!.reason} (${agreeing.length} of ${grades.length} judges of ${id})` };
    }
    return unjudged(judged.length < 2 ? `${id}: fewer than two judges could judge` : `${id}: the judges disagree and none has a majority`);
  }
  const scores = judged.map((g) => g.score!).sort((a, b) => a - b);
  if (scores.length === 3) return { ...judged[0]!, outcome: "scored", score: scores[1]!, reason: `graded ${scores[1]!.toFixed(2)} by ${id} (the median of three judges)` };
  if (scores.length === 2 && !membersDisagree(kind, judged)) {
    const mean = (scores[0]! + scores[1]!) / 2;
    return { ...judged[0]!, outcome: "scored", score: mean, reason: `graded ${mean.toFixed(2)} by ${id} (the mean of two judges; one could not judge)` };
  }
  return unjudged(scores.length < 2 ? `${id}: fewer than two judges could judge` : `${id}: the judges disagree and none has a majority`);
}

function requestOf(req: GradeRequest): DisputedRequest {
  switch (req.kind) {
    case "correctness":
      return { question: req.question, answer: req.answer, reference: req.reference, evidence: null, field: null };
    case "groundedness":
      return { question: req.question, answer: req.answer, reference: null, evidence: [...req.evidence], field: null };
    case "field_discovery":
      return { question: null, answer: JSON.stringify(req.actual), reference: JSON.stringify(req.candidates), evidence: null, field: req.section };
    default:
      return { question: req.facts.question ?? null, answer: req.facts.answer, reference: req.facts.reference, evidence: null, field: req.facts.field ?? null };
  }
}

/** The grade a maintainer's decision stands for: public, and it says who decided. */
export function decidedGrade(d: Decision, promptHash: string | null = null): Grade {
  const reason = d.outcome === "scored" ? `graded ${d.score.toFixed(2)}: decided by a maintainer` : `${d.outcome === "pass" ? "passed" : "failed"}: decided by a maintainer`;
  return { outcome: d.outcome, score: d.score, reason, detail: null, promptHash, cacheHit: false };
}

export interface PanelGraderOptions {
  rule: PanelRule;
  members: readonly Grader[];
  decisions?: DecisionLookup;
}

export function createPanelGrader({ rule, members, decisions }: PanelGraderOptions): Grader {
  if (members.length < 2 || members.length > 3) throw new Error(`a panel needs two or three judges, got ${members.length}`);
  if (rule === "majority" && members.length !== 3) throw new Error("a majority needs three judges");
  const id = `panel:${rule}(${members.map((m) => m.id).join(",")})`;
  const primary = members[0]!;
  return {
    id,
    readsPrompts: primary.readsPrompts,
    async grade(req) {
      // Discovery maps fields to fields: the first judge's mapping is used as it is.
      if (req.kind === "field_discovery") return gradeSafely(primary, req);
      const key = decisionKey(req);
      const decision = await decisions?.get(key);
      if (decision) {
        current.getStore()?.push({ key, kind: req.kind, rule, members: [], disputed: false, unjudged: [], outcome: decision.outcome, score: decision.score, decided: decision });
        return { ...decidedGrade(decision), panel: { key, disputed: false, decided: true } };
      }
      const grades = await Promise.all(members.map((m) => gradeSafely(m, req)));
      const memberGrades: MemberGrade[] = grades.map((g, i) => ({ judge: members[i]!.id, outcome: g.outcome, score: g.score, reason: g.reason, detail: g.detail, cacheHit: g.cacheHit }));
      const disputed = membersDisagree(req.kind, memberGrades);
      const g = byRule(req.kind, rule, grades, id);
      const reason = disputed ? `${g.reason} (the panel's judges disagree: disputed)` : g.reason;
      current.getStore()?.push({
        key,
        kind: req.kind,
        rule,
        members: memberGrades,
        disputed,
        unjudged: memberGrades.filter((m) => m.outcome === "unjudged").map((m) => m.judge),
        outcome: g.outcome,
        score: g.score,
        decided: null,
        ...(disputed ? { request: requestOf(req) } : {}),
      });
      return { ...g, reason, promptHash: g.promptHash ?? grades.find((x) => x.promptHash)?.promptHash ?? null, cacheHit: grades.every((x) => x.cacheHit), panel: { key, disputed, decided: false } };
    },
  };
}
