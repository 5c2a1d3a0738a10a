/** `judge.minKappa`'s rule: who is held, and a reason that never prints a κ below the bar as the bar itself. */
import { describe, expect, it } from "vitest";
import { calibrationHold } from "@/lib/aggregate/calibration-gate";
import { promptHashesDigest } from "@/lib/aggregate/calibration-report";

const HASHES = { correctness: "a".repeat(64), groundedness: "b".repeat(64) };
const run = { judgeKind: "openai", judgeId: "openai:m", promptHashes: HASHES };
const stored = (kappa: number | null, over: Partial<{ judgeId: string; promptDigest: string }> = {}) => [{ id: 1, judgeId: "openai:m", promptDigest: promptHashesDigest(HASHES), n: 40, kappa, ...over }];

describe("calibrationHold", () => {
  it("holds nothing without a bar, and never a rules-judged run", () => {
    expect(calibrationHold(undefined, run, [])).toBeNull();
    expect(calibrationHold(0.8, { judgeKind: "rules", judgeId: "rules", promptHashes: {} }, [])).toBeNull();
  });

  it("holds a panel that asks an LLM as one judge, and never a panel of deterministic judges", () => {
    const panel = { judgeKind: "panel", judgeId: "panel:primary(openai:m,rules)", promptHashes: HASHES };
    expect(calibrationHold(0.8, { ...panel, endpoint: "remote" }, stored(0.9))).toMatch(/^the panel:primary\(openai:m,rules\) judge has no stored calibration/);
    expect(calibrationHold(0.8, { ...panel, endpoint: "remote" }, stored(0.9, { judgeId: panel.judgeId }))).toBeNull();
    expect(calibrationHold(0.8, { ...panel, judgeId: "panel:primary(rules,rules)", endpoint: "none" }, [])).toBeNull();
  });

  it("asks for the same judge with the same prompts", () => {
    expect(calibrationHold(0.8, run, stored(0.9))).toBeNull();
    expect(calibrationHold(0.8, run, stored(0.8))).toBeNull();
    expect(calibrationHold(0.8, run, stored(0.9, { judgeId: "openai:other" }))).toMatch(/^the openai:m judge has no stored calibration for this benchmark version and its prompts/);
    expect(calibrationHold(0.8, run, stored(0.9, { promptDigest: promptHashesDigest({ ...HASHES, correctness: "c".repeat(64) }) }))).toMatch(/has no stored calibration/);
    expect(calibrationHold(0.8, { ...run, promptHashes: null }, stored(0.9))).toMatch(/has no stored calibration/);
  });

  it("says how far below the bar, in more decimals when two would print the bar", () => {
    expect(calibrationHold(0.6, run, stored(0.5))).toBe("the openai:m judge's calibration shows κ 0.50 on 40 labelled cases, below judge.minKappa 0.60");
    expect(calibrationHold(0.6, run, stored(0.5996))).toBe("the openai:m judge's calibration shows κ 0.5996 on 40 labelled cases, below judge.minKappa 0.60");
    expect(calibrationHold(0.6, run, stored(null))).toMatch(/calibration has no κ \(no judged pass\/fail cases, or a single class on both sides\)/);
  });
});
