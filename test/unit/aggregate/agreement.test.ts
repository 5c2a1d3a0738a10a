/**
 * The calibration statistics against values computed by hand (each computation in the comment
 * beside it), their undefined cases, and the seeded percentile bootstrap.
 */
import { describe, expect, it } from "vitest";
import { AGREEMENT_BOOTSTRAP, accuracyOf, averageRanks, cohensKappa, confusionOf, meanAbsoluteError, passFailAgreement, scoreAgreement, spearmanRho, type PassFailPair, type ScorePair } from "@/lib/aggregate/agreement";

const P = true;
const F = false;
const pairs = (labels: boolean[], judge: boolean[]): PassFailPair[] => labels.map((label, i) => ({ label, judge: judge[i]! }));

// Ten cases. Labels: 6 pass, 4 fail. The judge passes 4 of the 6 passes and 1 of the 4 fails.
//   confusion (label × judge): pass·pass 4, pass·fail 2, fail·pass 1, fail·fail 3
//   accuracy pₒ = (4 + 3) / 10 = 0.7
//   chance pₑ = (6/10)·(5/10) + (4/10)·(5/10) = 0.30 + 0.20 = 0.5   (label passes 6, judge passes 5)
//   κ = (0.7 − 0.5) / (1 − 0.5) = 0.4
const TEN = pairs([P, P, P, P, P, P, F, F, F, F], [P, P, P, P, F, F, P, F, F, F]);

// Five scored cases.
//   label  0.0  0.5  0.5  1.0  0.8
//   judge  0.1  0.4  0.7  0.9  0.9
//   |diff| 0.1  0.1  0.2  0.1  0.1   → MAE = 0.6 / 5 = 0.12
//   label ranks (ties averaged): 1, 2.5, 2.5, 5, 4      judge ranks: 1, 2, 3, 4.5, 4.5
//   both mean 3; deviations dx = −2, −0.5, −0.5, 2, 1;  dy = −2, −1, 0, 1.5, 1.5
//   Σdx·dy = 4 + 0.5 + 0 + 3 + 1.5 = 9;  Σdx² = 4 + 0.25 + 0.25 + 4 + 1 = 9.5;  Σdy² = 4 + 1 + 0 + 2.25 + 2.25 = 9.5
//   ρ = 9 / √(9.5 · 9.5) = 9 / 9.5 = 0.947368…
const FIVE: ScorePair[] = [
  { label: 0, judge: 0.1 },
  { label: 0.5, judge: 0.4 },
  { label: 0.5, judge: 0.7 },
  { label: 1, judge: 0.9 },
  { label: 0.8, judge: 0.9 },
];

describe("pass/fail agreement", () => {
  it("counts the confusion matrix, accuracy and Cohen's κ as computed by hand", () => {
    const c = confusionOf(TEN);
    expect(c).toEqual({ passPass: 4, passFail: 2, failPass: 1, failFail: 3 });
    expect(accuracyOf(c)).toBe(0.7);
    expect(cohensKappa(c)).toBeCloseTo(0.4, 12);
    const a = passFailAgreement(TEN);
    expect(a.n).toBe(10);
    expect(a.accuracy.value).toBe(0.7);
    expect(a.kappa.value).toBeCloseTo(0.4, 12);
    expect(a.confusion).toEqual(c);
  });

  it("leaves κ undefined (null, never NaN) when labels and judge are all one same class", () => {
    // pₒ = 1 and pₑ = (4·4 + 0·0)/16 = 1: 0/0.
    const allPass = passFailAgreement(pairs([P, P, P, P], [P, P, P, P]));
    expect(allPass.accuracy.value).toBe(1);
    expect(allPass.kappa).toEqual({ value: null, ciLow: null, ciHigh: null });
    // Labels all pass, the judge fails one: pₒ = 3/4, pₑ = (4·3 + 0·1)/16 = 3/4, κ = 0 (defined: no better than chance).
    expect(cohensKappa(confusionOf(pairs([P, P, P, P], [P, P, P, F])))).toBe(0);
    // Opposite on every case: pₒ = 0, pₑ = (2·2 + 2·2)/16 = 1/2, κ = (0 − 1/2)/(1/2) = −1.
    expect(cohensKappa(confusionOf(pairs([P, P, F, F], [F, F, P, P])))).toBe(-1);
  });

  it("gives null everywhere for no cases", () => {
    const none = passFailAgreement([]);
    expect(none).toEqual({ n: 0, accuracy: { value: null, ciLow: null, ciHigh: null }, kappa: { value: null, ciLow: null, ciHigh: null }, confusion: { passPass: 0, passFail: 0, failPass: 0, failFail: 0 } });
  });
});

describe("score agreement", () => {
  it("computes MAE and Spearman's ρ with average ranks for ties, as by hand", () => {
    expect(averageRanks([0, 0.5, 0.5, 1, 0.8])).toEqual([1, 2.5, 2.5, 5, 4]);
    expect(averageRanks([0.1, 0.4, 0.7, 0.9, 0.9])).toEqual([1, 2, 3, 4.5, 4.5]);
    expect(meanAbsoluteError(FIVE)).toBeCloseTo(0.12, 12);
    expect(spearmanRho(FIVE)).toBeCloseTo(9 / 9.5, 12);
    const s = scoreAgreement(FIVE);
    expect(s.n).toBe(5);
    expect(s.meanAbsoluteError.value).toBeCloseTo(0.12, 12);
    expect(s.spearman.value).toBeCloseTo(0.9473684210526315, 12);
  });

  it("leaves ρ undefined for a constant side or a single case, and everything for none", () => {
    expect(spearmanRho([{ label: 0.5, judge: 0.2 }, { label: 0.5, judge: 0.9 }])).toBeNull();
    expect(spearmanRho([{ label: 0.5, judge: 0.2 }])).toBeNull();
    expect(meanAbsoluteError([])).toBeNull();
    expect(scoreAgreement([])).toEqual({ n: 0, meanAbsoluteError: { value: null, ciLow: null, ciHigh: null }, spearman: { value: null, ciLow: null, ciHigh: null } });
  });
});

describe("bootstrap intervals", () => {
  it("uses 1,000 resamples of the board's seed, reproducibly", () => {
    expect(AGREEMENT_BOOTSTRAP).toEqual({ seed: 20_260_522, resamples: 1000 });
    expect(passFailAgreement(TEN)).toEqual(passFailAgreement(TEN));
    expect(scoreAgreement(FIVE)).toEqual(scoreAgreement(FIVE, { seed: 20_260_522, resamples: 1000 }));
  });

  it("matches the hand-derived percentiles of small cases", () => {
    // Two cases, one agreed and one not: a resample of 2 holds 0, 1 or 2 agreements with
    // probabilities 1/4, 1/2, 1/4, so accuracy resamples are 0, 0.5 or 1, each end taking about
    // 250 of 1,000 draws: the 2.5th percentile is 0 and the 97.5th is 1.
    const a = passFailAgreement(pairs([P, F], [P, P]));
    expect(a.accuracy).toEqual({ value: 0.5, ciLow: 0, ciHigh: 1 });
    // Both agreed, one pass and one fail: κ = 1. A resample drawing the same case twice holds one
    // class on both sides (κ undefined) and is left out; every other resample has κ = 1.
    const b = passFailAgreement(pairs([P, F], [P, F]));
    expect(b.kappa).toEqual({ value: 1, ciLow: 1, ciHigh: 1 });
    // Full agreement resamples to full agreement.
    expect(passFailAgreement(TEN.map((p) => ({ ...p, judge: p.label }))).accuracy).toEqual({ value: 1, ciLow: 1, ciHigh: 1 });
  });

  it("brackets the estimate, and another seed draws other resamples", () => {
    const a = passFailAgreement(TEN);
    expect(a.kappa.ciLow!).toBeLessThan(0.4);
    expect(a.kappa.ciHigh!).toBeGreaterThan(0.4);
    expect(a.accuracy.ciLow!).toBeLessThanOrEqual(0.7);
    expect(a.accuracy.ciHigh!).toBeGreaterThanOrEqual(0.7);
    const s = scoreAgreement(FIVE);
    expect(s.meanAbsoluteError.ciLow!).toBeGreaterThanOrEqual(0.1 - 1e-12);
    expect(s.meanAbsoluteError.ciHigh!).toBeLessThanOrEqual(0.2 + 1e-12);
    // One resample per seed: its interval is that resample's accuracy, so seeds show their draws.
    const draws = new Set([1, 2, 3, 4, 5, 6].map((seed) => passFailAgreement(TEN, { seed, resamples: 1 }).accuracy.ciLow));
    expect(draws.size).toBeGreaterThan(1);
    expect(passFailAgreement(TEN, { seed: 7 }).kappa.value).toBe(a.kappa.value);
  });
});
