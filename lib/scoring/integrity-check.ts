/**
 * The engine's integrity checks of one scored submission: unsupported answers per capability
 * (above the benchmark's threshold, a flag) and canaries in the submitted text. Duplicates
 * need the other entries of the board: lib/submissions adds them when a run completes.
 */
import { dialogueCapability, type Benchmark } from "../benchmark/load-benchmark";
import { leadingCallsDropped } from "../benchmark/spec";
import type { Submission } from "../validate/validate-bundle";
import { scanCanaries } from "./canary-scan";
import { canaryFlag, unsupportedAnswersFlag, type IntegrityFlag, type RunIntegrity } from "./integrity-flags";
import type { ItemResult } from "./item-result";
import { unsupportedAnswers, type ExpectsCalls } from "./unsupported-answers";

/** Whether a waterfall item's ground-truth turn makes calls of its own (the environment's leading ones aside). */
function groundTruthExpectsCalls(benchmark: Benchmark): ExpectsCalls {
  return (capability, uuid, turnId) => {
    const cap = benchmark.capabilities.find((c) => c.spec.id === capability);
    const turns = cap ? dialogueCapability(cap).byUuid.get(uuid)?.turns : undefined;
    const index = turns?.findIndex((t) => t.turnId === turnId) ?? -1;
    if (!turns || index < 0) return false;
    const calls = turns[index]!.calls;
    return calls.length > leadingCallsDropped(cap!.spec.environment, calls, index);
  };
}

export function checkIntegrity(benchmark: Benchmark, submission: Pick<Submission, "capabilities" | "outputs" | "metadata" | "trials">, items: readonly ItemResult[]): RunIntegrity {
  const spec = benchmark.spec.integrity;
  const threshold = spec.unsupportedAnswers === false ? null : spec.unsupportedAnswers;
  const caps = benchmark.capabilities.map((c) => c.spec);
  const { shares, flagged } = unsupportedAnswers(caps, items, groundTruthExpectsCalls(benchmark), threshold);
  const flags: IntegrityFlag[] = [];
  for (const cap of caps) {
    const found = flagged.get(cap.id);
    const share = shares.capabilities[cap.id];
    if (found && share && threshold !== null) flags.push(unsupportedAnswersFlag(cap.id, cap.label, share, threshold, found));
  }
  const canaries = scanCanaries(submission, spec.canaries);
  if (canaries.items.length > 0 || canaries.inMetadata) flags.push(canaryFlag(canaries.items, canaries.inMetadata));
  return { flags, unsupportedAnswers: shares };
}
