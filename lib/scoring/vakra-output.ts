/**
 * Results in the shape of VAKRA's evaluator output, one document per capability, so
 * existing VAKRA tooling can read Agentboard's scores. Unlike VAKRA, every mean divides by
 * the ground-truth count (missing predictions count 0) and missing items are listed.
 */
import { dialogueCapability, type Benchmark } from "../benchmark/load-benchmark";
import type { Submission } from "../validate/validate-bundle";
import type { ItemResult, WaterfallItemResult } from "./item-result";
import { vakraPredictionString } from "./vakra-strings";
import type { StageName, Verdict } from "./verdict";

export function buildVakraOutputs(benchmark: Benchmark, submission: Submission, items: readonly ItemResult[], dirs: { groundTruth: string; predictions: string }) {
  const byKey = new Map(items.filter((it): it is WaterfallItemResult => it.scorer === "waterfall").map((it) => [`${it.capability}\0${it.uuid}`, it]));
  const out: { file: string; document: unknown }[] = [];
  // VAKRA's files describe dialogues: evaluator capabilities have their own outputs.
  for (const anyCap of benchmark.capabilities) {
    if (anyCap.spec.scorer !== "waterfall" || !submission.capabilities.has(anyCap.spec.id)) continue;
    const cap = dialogueCapability(anyCap);
    const predicted = submission.capabilities.get(cap.spec.id)!;
    const domains: Record<string, unknown> = {};
    const all: number[] = [];
    let paired = 0;
    let missingTotal = 0;
    for (const [domain, gts] of cap.domains) {
      const dialogues: unknown[] = [];
      const scores: number[] = [];
      const missing: string[] = [];
      for (const gt of gts) {
        const it = byKey.get(`${cap.spec.id}\0${gt.uuid}`)!;
        const pred = predicted.get(gt.uuid);
        scores.push(it.score);
        if (!pred) missing.push(gt.uuid);
        const meta = { capability: cap.spec.directory, domain, policy: { dialogue_aggregate: "mean", execute_mcp_tools: it.replay === "mcp" }, ...(it.status !== "scored" ? { error: it.status === "missing" ? "missing_prediction" : it.status } : {}) };
        const perTurn = it.turns.map((t) => {
          const gtTurn = gt.turns.find((g) => g.turnId === t.turnId);
          const predTurn = pred?.turns.find((p) => p.turnId === t.turnId) ?? (pred?.turns.length === 1 ? pred.turns[0] : undefined);
          const v = (stage: StageName): Verdict | undefined => it.verdicts.find((x) => x.turnId === t.turnId && x.stage === stage);
          const num = (stage: StageName) => v(stage)?.score ?? null;
          const why = (stage: StageName) => {
            const x = v(stage);
            return x && x.outcome !== "skipped" ? (x.detail ?? x.reason) : null;
          };
          const gtSteps = gtTurn?.calls.length ?? 0;
          const predSteps = predTurn?.calls.length ?? 0;
          const policy = v("policy");
          return {
            turn_id: t.turnId,
            query: gtTurn?.query ?? "",
            // As VAKRA writes it: the answer stringified, "" when there is none.
            pred_answer: vakraPredictionString(predTurn?.answer),
            score: t.score,
            metadata: {
              gt_steps: gtSteps,
              pred_steps: predSteps,
              extra_steps: Math.max(0, predSteps - gtSteps),
              exactmatch_score: num("exact"),
              answer_score: num("correctness"),
              groundedness_score: num("groundedness"),
              ...(policy?.outcome === "fail" ? { policy_adherance_score: 0 } : {}),
              score_explanation: { answer: why("correctness"), exactmatch: why("exact"), groundedness: why("groundedness"), ...(policy?.outcome === "fail" ? { policy: policy.reason } : {}) },
            },
          };
        });
        dialogues.push({ uuid: gt.uuid, score: it.score, metadata: meta, details: { dialogue_score: it.score, num_turns: gt.turns.length, aggregate: "mean", per_turn: perTurn } });
      }
      all.push(...scores);
      paired += gts.length - missing.length;
      missingTotal += missing.length;
      domains[domain] = {
        domain,
        n_groundtruth: gts.length,
        n_prediction: gts.length - missing.length,
        n_paired: gts.length - missing.length,
        missing_prediction_uuids: missing,
        extra_prediction_uuids: [],
        dialogues,
        summary: summary(scores, "num"),
      };
    }
    out.push({
      file: `${cap.spec.directory}_results.json`,
      document: {
        capability_name: cap.spec.directory,
        groundtruth_dir: `${dirs.groundTruth}/groundtruth/${cap.spec.directory}`,
        prediction_dir: `${dirs.predictions}/${cap.spec.directory}`,
        domains,
        summary: { n_domains: cap.domains.size, n_paired_dialogues: paired, n_missing_predictions: missingTotal, n_extra_predictions: 0, ...summary(all, "n") },
      },
    });
  }
  return out;
}

function summary(scores: number[], prefix: "n" | "num") {
  const sum = scores.reduce((a, b) => a + b, 0);
  return {
    [`${prefix}_samples`]: scores.length,
    [`${prefix}_correct`]: sum,
    mean_dialogue_score: scores.length ? sum / scores.length : 0,
    min_dialogue_score: scores.length ? Math.min(...scores) : 0,
    max_dialogue_score: scores.length ? Math.max(...scores) : 0,
  };
}
