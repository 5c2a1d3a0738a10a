/**
 * Results in the shape of VAKRA's evaluator output (IBM/vakra a44036a, evaluator.py), one
 * document per capability, so VAKRA's tooling, its resume reader included, reads Agentboard's
 * scores as its own. Field by field as VAKRA writes them: its capability keys, floats where
 * Python has floats (`1.0`), only the paired dialogues listed, missing uuids sorted, each
 * domain's mean over its paired dialogues and the overall mean over every ground-truth one.
 * What stays different is listed in docs/vakra.md.
 */
import { dialogueCapability, type Benchmark } from "../benchmark/load-benchmark";
import { itemKey } from "../benchmark/item-key";
import { leadingCallsDropped } from "../benchmark/spec";
import { JsonNumber } from "../formats/lossless-json";
import { pythonFloatRepr, pythonJsonDumps } from "../formats/python-str";
import type { Submission } from "../validate/validate-bundle";
import type { ItemResult, WaterfallItemResult } from "./item-result";
import { vakraPredictionString } from "./vakra-strings";
import type { StageName, Verdict } from "./verdict";

/** Where the run's files were, as the user named them: VAKRA writes its `--gt_root` and `--pred_root`. */
export interface VakraOutputPaths {
  /** The folder holding a capability's ground-truth `<domain>.json` files, by capability directory. */
  groundTruthDir: (directory: string) => string;
  /** The bundle folder (or zip) as given; a capability's predictions sit in the folder its files were read from. */
  bundle: string;
}

export interface VakraOutputFile {
  file: string;
  /** The document, with each of VAKRA's floats as a float {@link JsonNumber} so `1.0` stays `1.0`. */
  document: Record<string, unknown>;
}

/** A Python float: VAKRA's scores and means pass through `float()` or float arithmetic (json.dumps writes NaN as `NaN`). */
const float = (n: number) => new JsonNumber(Number.isFinite(n) ? pythonFloatRepr(n) : String(n));

/** VAKRA's registry key for a capability folder: `capability_1_bi_apis` → `capability_bi_apis`. */
function vakraCapabilityKey(directory: string): string {
  return directory.replace(/^capability_\d+_/, "capability_");
}

/** `str(pathlib.Path(p))`: repeated and trailing slashes and `.` parts dropped (`..` kept, as pathlib keeps it). */
function pythonPathStr(p: string): string {
  const absolute = p.startsWith("/");
  const parts = p.split("/").filter((s) => s !== "" && s !== ".");
  const joined = parts.join("/");
  return absolute ? `/${joined}` : joined || ".";
}

/** The text VAKRA's evaluator writes: `json.dumps(results, indent=2, ensure_ascii=False)`, no final newline. */
export function renderVakraOutput(document: Record<string, unknown>): string {
  return pythonJsonDumps(document, { ensureAscii: false });
}

export function buildVakraOutputs(benchmark: Benchmark, submission: Submission, items: readonly ItemResult[], paths: VakraOutputPaths): VakraOutputFile[] {
  const byKey = new Map(items.filter((it): it is WaterfallItemResult => it.scorer === "waterfall").map((it) => [itemKey(it.capability, it.uuid), it]));
  const out: VakraOutputFile[] = [];
  // VAKRA's files describe dialogues: evaluator capabilities have their own outputs.
  for (const anyCap of benchmark.capabilities) {
    if (anyCap.spec.scorer !== "waterfall" || !submission.capabilities.has(anyCap.spec.id)) continue;
    const cap = dialogueCapability(anyCap);
    const key = vakraCapabilityKey(cap.spec.directory);
    const predicted = submission.capabilities.get(cap.spec.id)!;
    const env = cap.spec.environment;
    const domains: Record<string, unknown> = {};
    const all: number[] = [];
    let paired = 0;
    let missingTotal = 0;
    let groundTruthTotal = 0;
    let predictionDir: string | undefined;
    for (const [domain, gts] of cap.domains) {
      const dialogues: unknown[] = [];
      const scores: number[] = [];
      const missing: string[] = [];
      for (const gt of gts) {
        const pred = predicted.get(gt.uuid);
        // VAKRA lists only the dialogues it paired; the missing ones are named below.
        if (!pred) {
          missing.push(gt.uuid);
          continue;
        }
        predictionDir ??= folderOf(submission.origins.get(itemKey(cap.spec.id, gt.uuid)));
        const it = byKey.get(itemKey(cap.spec.id, gt.uuid))!;
        scores.push(it.score);
        // VAKRA reports its policy, which always executes the calls; here, whether this run did.
        const replayed = it.replay === "mcp";
        const meta = { capability: key, domain, policy: { dialogue_aggregate: "mean", execute_mcp_tools: replayed }, ...(it.status !== "scored" ? { error: it.status } : {}) };
        const perTurn = it.turns.map((t) => {
          const gtIndex = gt.turns.findIndex((g) => g.turnId === t.turnId);
          const gtTurn = gt.turns[gtIndex];
          const predIndex = pred.turns.findIndex((p) => p.turnId === t.turnId);
          const predTurn = predIndex >= 0 ? pred.turns[predIndex] : pred.turns.length === 1 ? pred.turns[0] : undefined;
          const v = (stage: StageName): Verdict | undefined => it.verdicts.find((x) => x.turnId === t.turnId && x.stage === stage);
          const num = (stage: StageName) => {
            const s = v(stage)?.score;
            return s === null || s === undefined ? null : float(s);
          };
          const why = (stage: StageName) => {
            const x = v(stage);
            return x && x.outcome !== "skipped" ? (x.detail ?? x.reason) : null;
          };
          // Replaying, VAKRA's first turn starts with the environment's own calls (capability 1:
          // get_data in place of initialize_active_data), and it counts them as steps.
          const firstGt = replayed && gtIndex === 0;
          const firstPred = replayed && (predIndex === 0 || (predIndex < 0 && pred.turns.length === 1));
          const gtCalls = gtTurn?.calls ?? [];
          const gtSteps = gtCalls.length - (firstGt ? leadingCallsDropped(env, gtCalls, 0) : 0) + (firstGt ? (env?.prelude.length ?? 0) : 0);
          const predSteps = (predTurn?.calls.length ?? 0) + (firstPred ? (env?.prelude.length ?? 0) : 0);
          const steps = { gt_steps: gtSteps, pred_steps: predSteps, extra_steps: Math.max(0, predSteps - gtSteps) };
          const policy = v("policy");
          // A broken policy ends the turn before any other stage, in the shape VAKRA's
          // (commented-out) policy stage gives it.
          const metadata =
            policy?.outcome === "fail"
              ? { ...steps, policy_adherance_score: float(0), exactmatch_score: null, answer_score: null, groundedness_score: null, score_explanation: { policy: policy.detail ?? policy.reason, answer: null, exactmatch: null, groundedness: null } }
              : {
                  ...steps,
                  exactmatch_score: num("exact"),
                  answer_score: num("correctness"),
                  groundedness_score: num("groundedness"),
                  score_explanation: { answer: why("correctness"), exactmatch: why("exact"), groundedness: why("groundedness") },
                };
          return {
            turn_id: t.turnId,
            query: gtTurn?.query ?? "",
            // As VAKRA writes it: the answer stringified, "" when there is none.
            pred_answer: vakraPredictionString(predTurn?.answer),
            score: float(t.score),
            metadata,
          };
        });
        dialogues.push({ uuid: gt.uuid, score: float(it.score), metadata: meta, details: { dialogue_score: float(it.score), num_turns: gt.turns.length, per_turn: perTurn, aggregate: "mean" } });
      }
      all.push(...scores);
      paired += scores.length;
      missingTotal += missing.length;
      groundTruthTotal += gts.length;
      const sum = scores.reduce((a, b) => a + b, 0);
      domains[domain] = {
        domain,
        n_groundtruth: gts.length,
        n_prediction: scores.length,
        n_paired: scores.length,
        missing_prediction_uuids: missing.sort(),
        extra_prediction_uuids: [],
        dialogues,
        summary: {
          num_samples: gts.length,
          num_correct: float(sum),
          mean_dialogue_score: float(scores.length ? sum / scores.length : 0),
          min_dialogue_score: float(extreme(scores, Math.min)),
          max_dialogue_score: float(extreme(scores, Math.max)),
        },
      };
    }
    const total = all.reduce((a, b) => a + b, 0);
    out.push({
      file: `${cap.spec.directory}_results.json`,
      document: {
        capability_name: key,
        groundtruth_dir: pythonPathStr(paths.groundTruthDir(cap.spec.directory)),
        prediction_dir: pythonPathStr(`${paths.bundle}/${predictionDir ?? cap.spec.directory}`),
        domains,
        summary: {
          n_domains: cap.domains.size,
          n_paired_dialogues: paired,
          n_missing_predictions: missingTotal,
          n_extra_predictions: 0,
          n_samples: groundTruthTotal,
          n_correct: float(total),
          mean_dialogue_score: float(all.length ? total / groundTruthTotal : 0),
          min_dialogue_score: float(extreme(all, Math.min)),
          max_dialogue_score: float(extreme(all, Math.max)),
        },
      },
    });
  }
  return out;
}

/** The bundle folder a prediction was read from (`<folder>/<domain>.json record i`). */
function folderOf(origin: string | undefined): string | undefined {
  const file = origin?.replace(/ record \d+$/, "");
  return file && file.includes("/") ? file.slice(0, file.lastIndexOf("/")) : undefined;
}

/** Python's `min(xs) if xs else 0.0` (or max), without spreading a long list into arguments. */
function extreme(xs: readonly number[], pick: (a: number, b: number) => number): number {
  return xs.length ? xs.reduce((a, b) => pick(a, b)) : 0;
}
