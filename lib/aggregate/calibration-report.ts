/**
 * A calibration report: how a judge agreed with a benchmark's labelled cases, per stage and
 * capability and over all of them, with the judge's identity as a run's manifest records it
 * (kind, model, endpoint class, prompt-template hashes). `agentboard calibrate --out` writes
 * it; the board stores it per (judge, prompt hashes, benchmark version) and shows its summary.
 *
 * How grades become pairs: a pass/fail label pairs with a pass/fail grade, or with a graded
 * score read as pass at 0.5 or above; a score label pairs with the grade's score. An unjudged
 * grade pairs with nothing: it is counted (per group and in all), never taken as a fail.
 * The summary pools every stage and capability: its pass/fail agreement is the headline the
 * board shows and `judge.minKappa` is held to.
 */
import { z } from "zod";
import { AGREEMENT_BOOTSTRAP, passFailAgreement, scoreAgreement, type BootstrapOptions, type PassFailAgreement, type PassFailPair, type ScoreAgreement, type ScorePair } from "./agreement";
import { canonicalJson } from "../formats/canonical-json";
import { CALIBRATION_STAGES, isPassFailLabel, type CalibrationLabel, type CalibrationStage } from "../formats/calibration-case";
import { sha256 } from "../formats/sha256";
import { formatZodIssues } from "../formats/zod-issues";
import type { GradeOutcome } from "../judges/grader";
import type { Benchmark } from "../benchmark/load-benchmark";
import type { CalibrationCase } from "../formats/calibration-case";
import type { Grader } from "../judges/grader";
import type { RecordedJudge } from "../judges/judge-settings";
import { gradeCalibrationCases, type CaseGrade } from "../scoring/calibrate";
import { manifestJudge, type AgentboardVersion, type CalibrationRef, type RunManifest } from "../scoring/manifest";

export type { CalibrationRef };

/**
 * The judge as a run's manifest names it; a panel also by its id (`panel:primary(rules,literal)`),
 * the name its runs have, since its kind alone would not say which judges sat on it.
 */
export type CalibratedJudge = Omit<RunManifest["judge"], "calibration"> & { id?: string };

/** The judge a report names: as the manifest names it, with a panel's id. */
export function calibratedJudge(judge: RecordedJudge, grader: Pick<Grader, "id" | "model">): CalibratedJudge {
  return { ...manifestJudge({ ...judge, id: grader.id, model: grader.model ?? null }), ...(judge.kind === "panel" ? { id: grader.id } : {}) };
}

/**
 * Grades a benchmark's labelled cases with a judge and reports how it agreed: what `calibrate`
 * prints and `--store` keeps, and what the demo loader stores for the demo's judge.
 */
export async function calibrateJudge(
  benchmark: Benchmark,
  set: { cases: readonly CalibrationCase[]; files: string[] },
  judge: { grader: Grader; recorded: RecordedJudge },
  ctx: { agentboard: AgentboardVersion; createdAt: Date; onProgress?: (done: number, total: number) => void },
): Promise<CalibrationReport> {
  const graded = await gradeCalibrationCases(benchmark, set.cases, { grader: judge.grader, ...(ctx.onProgress ? { onProgress: ctx.onProgress } : {}) });
  return buildCalibrationReport(graded, {
    benchmark: { slug: benchmark.spec.slug, version: benchmark.spec.version, contentHash: benchmark.content?.hash ?? null },
    judge: calibratedJudge(judge.recorded, judge.grader),
    agentboard: ctx.agentboard,
    createdAt: ctx.createdAt,
    files: set.files,
  });
}

export interface CalibrationGroup {
  stage: CalibrationStage;
  capability: string;
  cases: number;
  unjudged: number;
  /** Over the judged cases with pass/fail labels; null when there are none. */
  passFail: PassFailAgreement | null;
  /** Over the judged cases with score labels; null when there are none. */
  scores: ScoreAgreement | null;
}

export interface CaseOutcome {
  id: string;
  stage: CalibrationStage;
  capability: string;
  label: CalibrationLabel;
  outcome: GradeOutcome;
  score: number | null;
  /** Why it could not be judged (public: a grader's reason never quotes the case). */
  reason?: string;
}

export interface CalibrationReport {
  schema: "agentboard.calibration/1";
  benchmark: { slug: string; version: string; contentHash: string | null };
  judge: CalibratedJudge;
  agentboard: AgentboardVersion;
  createdAt: string;
  bootstrap: { seed: number; resamples: number };
  /** The calibration files read, relative to the benchmark folder. */
  files: string[];
  summary: { cases: number; unjudged: number; passFail: PassFailAgreement | null; scores: ScoreAgreement | null };
  groups: CalibrationGroup[];
  cases: CaseOutcome[];
}

/** A pass/fail stage grade, or a score read at 0.5. */
const judgedPass = (outcome: GradeOutcome, score: number | null): boolean => (outcome === "pass" ? true : outcome === "fail" ? false : (score ?? 0) >= 0.5);

function agreementOf(outcomes: readonly CaseOutcome[], opts: BootstrapOptions) {
  const passFail: PassFailPair[] = [];
  const scores: ScorePair[] = [];
  let unjudged = 0;
  for (const o of outcomes) {
    if (o.outcome === "unjudged") {
      unjudged++;
      continue;
    }
    if (isPassFailLabel(o.label)) passFail.push({ label: o.label === "pass", judge: judgedPass(o.outcome, o.score) });
    else scores.push({ label: o.label, judge: o.score ?? 0 });
  }
  return {
    cases: outcomes.length,
    unjudged,
    passFail: passFail.length ? passFailAgreement(passFail, opts) : null,
    scores: scores.length ? scoreAgreement(scores, opts) : null,
  };
}

export interface ReportContext {
  benchmark: CalibrationReport["benchmark"];
  judge: CalibratedJudge;
  agentboard: AgentboardVersion;
  createdAt: Date;
  files: string[];
  bootstrap?: BootstrapOptions;
}

export function buildCalibrationReport(graded: readonly CaseGrade[], ctx: ReportContext): CalibrationReport {
  const bootstrap = { seed: ctx.bootstrap?.seed ?? AGREEMENT_BOOTSTRAP.seed, resamples: ctx.bootstrap?.resamples ?? AGREEMENT_BOOTSTRAP.resamples };
  const cases: CaseOutcome[] = graded.map(({ case: c, grade }) => ({
    id: c.id,
    stage: c.stage,
    capability: c.capability,
    label: c.label,
    outcome: grade.outcome,
    score: grade.score,
    ...(grade.outcome === "unjudged" ? { reason: grade.reason } : {}),
  }));
  const byGroup = new Map<string, CaseOutcome[]>();
  for (const o of cases) {
    const key = `${CALIBRATION_STAGES.indexOf(o.stage)}\0${o.capability}`;
    byGroup.set(key, [...(byGroup.get(key) ?? []), o]);
  }
  const groups = [...byGroup.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, list]) => ({ stage: list[0]!.stage, capability: list[0]!.capability, ...agreementOf(list, bootstrap) }));
  return {
    schema: "agentboard.calibration/1",
    benchmark: ctx.benchmark,
    judge: ctx.judge,
    agentboard: ctx.agentboard,
    createdAt: ctx.createdAt.toISOString(),
    bootstrap,
    files: ctx.files,
    summary: agreementOf(cases, bootstrap),
    groups,
    cases,
  };
}

/** The digest of a judge's prompt-template hashes: with its id and the benchmark version, it keys a stored calibration. */
export const promptHashesDigest = (hashes: Readonly<Record<string, string>>): string => sha256(canonicalJson(hashes));

/** The headline a stored calibration is held to and shown by: the pooled pass/fail agreement. */
export function calibrationHeadline(report: Pick<CalibrationReport, "summary">): { n: number; accuracy: number | null; kappa: number | null } {
  const pf = report.summary.passFail;
  return { n: pf?.n ?? 0, accuracy: pf?.accuracy.value ?? null, kappa: pf?.kappa.value ?? null };
}

const num = z.number().finite().nullable();
const estimate = z.object({ value: num, ciLow: num, ciHigh: num }).strict();
const count = z.number().int().min(0);
const passFailSchema = z.object({ n: count, accuracy: estimate, kappa: estimate, confusion: z.object({ passPass: count, passFail: count, failPass: count, failFail: count }).strict() }).strict();
const scoresSchema = z.object({ n: count, meanAbsoluteError: estimate, spearman: estimate }).strict();
const short = z.string().max(1_000);
const hash = z.string().regex(/^[0-9a-f]{64}$/, "expected a sha256");
const stage = z.enum(CALIBRATION_STAGES);
const label = z.union([z.literal("pass"), z.literal("fail"), z.number().min(0).max(1)]);

const reportSchema = z
  .object({
    schema: z.literal("agentboard.calibration/1"),
    benchmark: z.object({ slug: short, version: short, contentHash: hash.nullable() }).strict(),
    judge: z.object({ kind: short, model: short.nullable(), endpoint: z.enum(["none", "local", "remote"]), promptHashes: z.record(short, hash), id: short.optional() }).strict(),
    agentboard: z.object({ version: short, commit: short.nullable() }).strict(),
    createdAt: z.iso.datetime(),
    bootstrap: z.object({ seed: z.number().int(), resamples: z.number().int().min(1).max(100_000) }).strict(),
    files: z.array(short).max(64),
    summary: z.object({ cases: count, unjudged: count, passFail: passFailSchema.nullable(), scores: scoresSchema.nullable() }).strict(),
    groups: z.array(z.object({ stage, capability: short, cases: count, unjudged: count, passFail: passFailSchema.nullable(), scores: scoresSchema.nullable() }).strict()).max(10_000),
    cases: z.array(z.object({ id: short, stage, capability: short, label, outcome: z.enum(["pass", "fail", "scored", "unjudged"]), score: num, reason: z.string().max(10_000).optional() }).strict()).max(10_000),
  })
  .strict();

/** A calibration report from untrusted JSON (a file handed to `calibration store`), or what is wrong with it. */
export function parseCalibrationReport(value: unknown): { ok: true; report: CalibrationReport } | { ok: false; error: string } {
  const r = reportSchema.safeParse(value);
  if (r.success) return { ok: true, report: r.data };
  return { ok: false, error: `not an Agentboard calibration report (${formatZodIssues(r.error).slice(0, 3).join("; ")})` };
}
