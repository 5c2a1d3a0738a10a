/**
 * A grader that answers from a script and records what it was asked: the edge the
 * evaluators' and scoring tests fake. A graded request (qa, trajectory, report field) gets a
 * score, a score with its reasoning and prompt hash, or a whole `Grade` (say, `gaveUp(…)`,
 * a judge that spent its retries); a pass/fail request (correctness, groundedness) gets a
 * boolean or a `Grade`. Without `discover`, a discovery request is unjudged the way a judge
 * out of retries is; an unscripted pass/fail request is unjudged too.
 */
import { passFail, unjudged, type FieldMatch, type Grade, type GradeRequest, type Grader } from "@/lib/judges/grader";

export type GradedRequest = Extract<GradeRequest, { kind: "qa" | "trajectory" | "report_field" }>;
export type StageRequest = Extract<GradeRequest, { kind: "correctness" | "groundedness" }>;
export type DiscoveryRequest = Extract<GradeRequest, { kind: "field_discovery" }>;

type ScriptedScore = number | { score: number; reasoning?: string; promptHash?: string } | Grade;

/** What the openai grader returns once its retries are spent: the message stays private. */
export function gaveUp(message: string, id = "fake"): Grade {
  return { ...unjudged(`the ${id} judge gave no usable reply`, message), promptHash: "h" };
}

const isGrade = (g: object): g is Grade => "outcome" in g;

export function scriptedGrader(
  opts: {
    id?: string;
    grade?: (req: GradedRequest) => ScriptedScore;
    decide?: (req: StageRequest) => boolean | Grade;
    discover?: (req: DiscoveryRequest) => Omit<FieldMatch, "reasoning">[];
  } = {},
) {
  const id = opts.id ?? "fake";
  const requests: GradeRequest[] = [];
  const grades: GradedRequest[] = [];
  const decisions: StageRequest[] = [];
  const discoveries: DiscoveryRequest[] = [];
  const grader: Grader = {
    id,
    readsPrompts: true,
    async grade(req) {
      requests.push(req);
      switch (req.kind) {
        case "qa":
        case "trajectory":
        case "report_field": {
          grades.push(req);
          const g = opts.grade?.(req) ?? 0.6;
          if (typeof g === "object" && isGrade(g)) return g;
          const { score, reasoning = "scripted", promptHash = "h" } = typeof g === "number" ? { score: g } : g;
          // Like the openai grader: the public reason names only the score, the judge's words are private.
          return { outcome: "scored", score, reason: `graded ${score.toFixed(2)} by ${id}`, detail: reasoning, promptHash, cacheHit: false };
        }
        case "correctness":
        case "groundedness": {
          decisions.push(req);
          const d = opts.decide?.(req);
          if (d === undefined) return gaveUp(`no scripted ${req.kind} verdict`, id);
          if (typeof d === "object") return d;
          return { ...passFail(d, `judged ${d ? "pass" : "fail"} by ${id}`, "scripted"), promptHash: "v" };
        }
        case "field_discovery": {
          discoveries.push(req);
          if (!opts.discover) return gaveUp("judge failed after 3 attempts: HTTP 503", id);
          const matches = opts.discover(req).map((m) => ({ ...m, reasoning: "scripted" }));
          const mean = matches.length ? matches.reduce((s, m) => s + m.score, 0) / matches.length : 0;
          return { outcome: "scored", score: mean, reason: `${matches.length} unlisted field(s) mapped by ${id}`, detail: null, promptHash: "d", cacheHit: false, matches };
        }
      }
    },
  };
  return { grader, requests, grades, decisions, discoveries };
}
