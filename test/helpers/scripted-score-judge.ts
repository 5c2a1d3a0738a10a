/**
 * A graded judge that answers from a script and records what it was asked: the edge the
 * evaluators' tests fake. `grade` may return a score or a score with its reasoning and
 * prompt hash, and may throw to stand for a judge that gave up; without `discover`, a
 * discovery call fails the way a judge out of retries does.
 */
import { JudgeError } from "@/lib/scoring/judges/judge";
import type { DiscoveryRequest, GradeRequest, ScoreJudge } from "@/lib/scoring/judges/score-judge";

type Scripted = number | { score: number; reasoning?: string; promptHash?: string };

export function scriptedScoreJudge(opts: { id?: string; grade?: (req: GradeRequest) => Scripted; discover?: (req: DiscoveryRequest) => { field: string; referenceField: string | null; score: number }[] } = {}) {
  const grades: GradeRequest[] = [];
  const discoveries: DiscoveryRequest[] = [];
  const judge: ScoreJudge = {
    id: opts.id ?? "fake",
    readsPrompts: true,
    async grade(req) {
      grades.push(req);
      const g = opts.grade?.(req) ?? 0.6;
      const { score, reasoning = "scripted", promptHash = "h" } = typeof g === "number" ? { score: g } : g;
      return { score, reasoning, promptHash, cacheHit: false };
    },
    async discoverFields(req) {
      discoveries.push(req);
      if (!opts.discover) throw new JudgeError("judge failed after 3 attempts: HTTP 503", 3);
      return { matches: opts.discover(req).map((m) => ({ ...m, reasoning: "scripted" })), promptHash: "d", cacheHit: false };
    },
  };
  return { judge, grades, discoveries };
}
