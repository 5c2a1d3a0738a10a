/**
 * A run's reproducibility manifest: everything that decides its numbers, so anyone holding the
 * public bundle, the benchmark and the exported verdicts can re-derive them (`agentboard
 * verify`). `buildManifest` is pure: the Agentboard version comes in from the caller (the CLI's
 * build, the worker's deps), never from the environment or git.
 */
import { z } from "zod";
import type { BenchmarkContentParts } from "../benchmark/content-hash";
import { formatZodIssues } from "../formats/zod-issues";
import type { Benchmark } from "../benchmark/load-benchmark";
import type { GroundTruthSource, ReplayMode } from "../replay/replay-port";
import { DEFAULT_DISCOVERY_TEMPLATE, DEFAULT_FIELD_TEMPLATE, DEFAULT_QA_TEMPLATE, DEFAULT_TRAJECTORY_FREE_TEMPLATE, DEFAULT_TRAJECTORY_REFERENCE_TEMPLATE, discoveryMessages, scoreMessages, TEMPLATE_SPECS, type TemplateSpec } from "../evaluators/prompts";
import { sha256 } from "../formats/sha256";
import type { GradeUse } from "../judges/grade-log";
import { isDeterministicJudge } from "../judges/judge-kind";
import type { RecordedJudge } from "../judges/judge-settings";
import { promptHashOf } from "../judges/grade-prompt";
import { buildPrompt } from "../judges/prompts";
import type { ItemResult } from "./item-result";
import { trialItemKey } from "../benchmark/item-key";
import { panelAgreement, type PanelAgreement } from "./panel-agreement";

/** What Agentboard was when it scored: the package version, and the commit when the caller knows it. */
export interface AgentboardVersion {
  version: string;
  /** Short commit hash, `+` for uncommitted changes; null when unknown. */
  commit: string | null;
}

/** The stored calibration a run's judge had (its pooled pass/fail agreement with the benchmark's labelled cases). */
export interface CalibrationRef {
  id: number;
  kappa: number | null;
  accuracy: number | null;
  n: number;
}

/** Where the judge was asked: nowhere (rules, or recorded verdicts), on this machine (loopback), or elsewhere. Never the URL. */
export type EndpointClass = "none" | "local" | "remote";

export interface RunManifest {
  schema: "agentboard.manifest/1";
  bundle: { sha256: string };
  /** What the ground truth, spec and environment declaration hash to: a benchmark edited under the same version shows here. */
  benchmark: { slug: string; version: string; contentHash: string | null; parts: BenchmarkContentParts | null };
  /** The ground-truth responses the run compared against (stored replay, fresh replay, or the files' own); null under replay none. */
  groundTruthReplay: { hash: string | null; source: GroundTruthSource; items: number };
  agentboard: AgentboardVersion;
  /** Prompt hashes: one per prompt template the judge kind uses (none for rules or literal), so a prompt change shows. */
  judge: {
    kind: string;
    model: string | null;
    endpoint: EndpointClass;
    promptHashes: Record<string, string>;
    /** The stored calibration this judge had for the benchmark version when the run completed (null: none); absent where nobody looked (the CLI's `score`, runs from before calibrations). */
    calibration?: CalibrationRef | null;
  };
  replay: { mode: ReplayMode };
  /** The bootstrap's seed. */
  seed: number;
  trials: number;
  /**
   * `digest`: every item's capability, uuid, trial, status, stage and score and each verdict's
   * stage, outcome and score, in a fixed order (what decides numbers; no latencies, timestamps
   * or cache hits). `gradesDigest`: every exported judge grade's key, outcome and score.
   */
  verdicts: { digest: string; items: number; grades: number; gradesDigest: string };
  /** A judge panel's agreement per capability, its disputed and decided grades (panel-agreement.ts); absent without a panel. */
  panel?: PanelAgreement;
}

export interface ManifestInput {
  benchmark: Pick<Benchmark, "spec" | "content">;
  bundleSha256: string;
  items: readonly ItemResult[];
  judge: RecordedJudge | { id: string };
  replay: { mode: ReplayMode; source?: GroundTruthSource };
  seed: number;
  /** Unknown when the caller does not say (a test, a bench). */
  agentboard?: AgentboardVersion;
}

export const UNKNOWN_VERSION: AgentboardVersion = { version: "unknown", commit: null };

/** An item's trial (1 for a plain bundle); checked, since verify reads results files written anywhere. */
export const trialOf = (item: object): number => {
  const t = (item as { trial?: unknown }).trial;
  return typeof t === "number" && Number.isInteger(t) && t > 0 ? t : 1;
};

export function buildManifest(input: ManifestInput): RunManifest {
  const { benchmark, items } = input;
  const hashes = items.flatMap((i) => (i.scorer === "waterfall" && i.groundTruthHash ? [`${trialItemKey(i.capability, i.uuid, trialOf(i))}\0${i.groundTruthHash}`] : []));
  const grades = gradesOf(items);
  const panel = panelAgreement(items);
  return {
    schema: "agentboard.manifest/1",
    bundle: { sha256: input.bundleSha256 },
    benchmark: { slug: benchmark.spec.slug, version: benchmark.spec.version, contentHash: benchmark.content?.hash ?? null, parts: benchmark.content?.parts ?? null },
    groundTruthReplay: {
      hash: input.replay.mode === "none" || hashes.length === 0 ? null : sha256(hashes.sort().join("\n")),
      source: input.replay.mode === "none" ? "none" : (input.replay.source ?? (input.replay.mode === "recorded" ? "files" : "environment")),
      items: hashes.length,
    },
    agentboard: input.agentboard ?? UNKNOWN_VERSION,
    judge: manifestJudge(input.judge),
    replay: { mode: input.replay.mode },
    seed: input.seed,
    trials: items.reduce((k, i) => Math.max(k, trialOf(i)), 1),
    verdicts: { digest: verdictDigest(items), items: items.length, grades: grades.size, gradesDigest: gradesDigest(grades) },
    ...(panel ? { panel } : {}),
  };
}

/**
 * Whether the run's judge asked no model (a deterministic judge, or a panel of them): such a
 * judge is run again to verify the run, rather than answered from its exported verdicts.
 */
export const askedNoModel = (j: Pick<RunManifest["judge"], "kind" | "endpoint">): boolean => isDeterministicJudge(j.kind) || (j.kind === "panel" && j.endpoint === "none");

/** The judge as a manifest names it (a calibration report names its judge the same way). */
export function manifestJudge(j: RecordedJudge | { id: string }): Omit<RunManifest["judge"], "calibration"> {
  const judge = judgeOf(j);
  return { ...judge, promptHashes: isDeterministicJudge(judge.kind) ? {} : judgePromptHashes() };
}

/** The judge's kind, model and endpoint class; a bare `{id}` (a grader without resolved settings) is read from its id. */
export function judgeOf(j: RecordedJudge | { id: string }): Omit<RunManifest["judge"], "promptHashes"> {
  if ("kind" in j && j.panel) {
    // A panel asks wherever its members do: the farthest of their endpoints.
    const ends = j.panel.members.map((m) => judgeOf(m).endpoint);
    return { kind: j.kind, model: j.model, endpoint: ends.includes("remote") ? "remote" : ends.includes("local") ? "local" : "none" };
  }
  if ("kind" in j) return { kind: j.kind, model: j.model, endpoint: j.kind === "openai" ? endpointClass(j.baseUrl) : "none" };
  const { kind, model } = judgeOfId(j.id);
  return { kind, model, endpoint: kind === "openai" ? "remote" : "none" };
}

/** A judge id's kind and model: `rules`, `openai:<model>`. */
export function judgeOfId(id: string): { kind: string; model: string | null } {
  const [kind, ...model] = id.split(":");
  return { kind: kind!, model: model.length ? model.join(":") : null };
}

/** `local` for a loopback host, `remote` for any other (or an unreadable URL); `none` without one. */
export function endpointClass(baseUrl: string | null | undefined): EndpointClass {
  if (!baseUrl) return "none";
  let host: string;
  try {
    host = new URL(baseUrl).hostname.toLowerCase();
  } catch {
    return "remote";
  }
  const loopback = host === "localhost" || host.endsWith(".localhost") || host === "[::1]" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
  return loopback ? "local" : "remote";
}

/** Placeholders filled with their own names: the template's text, whatever it is later filled with. */
const probeVars = (spec: TemplateSpec) => Object.fromEntries(spec.allowed.map((a) => [a, `{${a}}`]));

let promptHashes: Record<string, string> | undefined;

/**
 * A hash per prompt template an LLM judge uses: the waterfall's two verdict prompts and the
 * evaluators' default templates, each rendered on placeholder values. A benchmark's own
 * templates are files it holds, so they count in its content hash instead.
 */
export function judgePromptHashes(): Record<string, string> {
  promptHashes ??= {
    correctness: promptHashOf(buildPrompt({ kind: "correctness", question: "{question}", answer: "{answer}", answerValue: "{answer}", reference: "{reference}", referenceValue: "{reference}" })),
    groundedness: promptHashOf(buildPrompt({ kind: "groundedness", question: "{question}", answer: "{answer}", answerValue: "{answer}", evidence: ["{evidence}"] })),
    qa: promptHashOf(scoreMessages(DEFAULT_QA_TEMPLATE, probeVars(TEMPLATE_SPECS.qa))),
    trajectory_reference: promptHashOf(scoreMessages(DEFAULT_TRAJECTORY_REFERENCE_TEMPLATE, probeVars(TEMPLATE_SPECS.trajectoryWithReference))),
    trajectory_free: promptHashOf(scoreMessages(DEFAULT_TRAJECTORY_FREE_TEMPLATE, probeVars(TEMPLATE_SPECS.trajectoryWithoutReference))),
    report_field: promptHashOf(scoreMessages(DEFAULT_FIELD_TEMPLATE, probeVars(TEMPLATE_SPECS.field))),
    field_discovery: promptHashOf(discoveryMessages(DEFAULT_DISCOVERY_TEMPLATE, probeVars(TEMPLATE_SPECS.discovery))),
  };
  return promptHashes;
}

const byItem = (a: ItemResult, b: ItemResult) => cmp(a.capability, b.capability) || cmp(a.uuid, b.uuid) || trialOf(a) - trialOf(b);
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** One item's line of the digest: only what decides numbers. */
export function itemDigestLine(i: ItemResult): string {
  const verdicts = i.scorer === "waterfall" ? i.verdicts.map((v) => [v.stage, v.turnId, v.outcome, v.score]) : [[i.evaluation?.status ?? null, i.evaluation?.score ?? null]];
  return JSON.stringify([i.capability, i.uuid, trialOf(i), i.status, i.stage, i.score, verdicts]);
}

/** sha256 over every item's line, sorted by capability, uuid and trial. */
export function verdictDigest(items: readonly ItemResult[]): string {
  return sha256([...items].sort(byItem).map(itemDigestLine).join("\n"));
}

/** Every item's grades by key (a key asked by several items is one grade). */
export function gradesOf(items: readonly Pick<ItemResult, "grades">[]): Map<string, GradeUse> {
  const out = new Map<string, GradeUse>();
  for (const i of items) for (const g of i.grades ?? []) if (!out.has(g.key)) out.set(g.key, g);
  return out;
}

/** What of a grade decides numbers: its outcome, score and (field discovery) the fields matched. */
export function gradeDigestLine(key: string, g: Pick<GradeUse, "outcome" | "score" | "matches">): string {
  return JSON.stringify([key, g.outcome, g.score, (g.matches ?? []).map((m) => [m.field, m.referenceField, m.score])]);
}

/** sha256 over the grades' lines (key → grade), sorted by key: the run's, or a verdict file's. */
export function gradesDigest(grades: Iterable<[string, Pick<GradeUse, "outcome" | "score" | "matches">]>): string {
  return sha256(
    [...grades]
      .sort(([a], [b]) => cmp(a, b))
      .map(([key, g]) => gradeDigestLine(key, g))
      .join("\n"),
  );
}

const hash = z.string().regex(/^[0-9a-f]{64}$/, "expected a sha256");
const text = z.string().max(1_000);
const manifestSchema = z.object({
  schema: z.literal("agentboard.manifest/1"),
  bundle: z.object({ sha256: text }),
  benchmark: z.object({ slug: text, version: text, contentHash: hash.nullable(), parts: z.object({ groundTruth: hash, files: hash, spec: hash, environment: hash }).nullable() }),
  groundTruthReplay: z.object({ hash: hash.nullable(), source: z.enum(["stored", "replayed", "stored+replayed", "environment", "files", "none"]), items: z.number().int().min(0) }),
  agentboard: z.object({ version: text, commit: text.nullable() }),
  judge: z.object({
    kind: text,
    model: text.nullable(),
    endpoint: z.enum(["none", "local", "remote"]),
    promptHashes: z.record(text, hash),
    calibration: z.object({ id: z.number().int(), kappa: z.number().nullable(), accuracy: z.number().nullable(), n: z.number().int().min(0) }).nullable().optional(),
  }),
  replay: z.object({ mode: z.enum(["mcp", "recorded", "none"]) }),
  seed: z.number(),
  trials: z.number().int().min(1),
  verdicts: z.object({ digest: hash, items: z.number().int().min(0), grades: z.number().int().min(0), gradesDigest: hash }),
  panel: z
    .object({
      agreement: z.record(text, z.object({ compared: z.number().int().min(0), agreed: z.number().int().min(0) })),
      disputed: z.number().int().min(0),
      decided: z.number().int().min(0),
    })
    .optional(),
});

/** A manifest from untrusted JSON (a server's answer, a results file), or what is wrong with it. */
export function parseManifest(value: unknown): { ok: true; manifest: RunManifest } | { ok: false; error: string } {
  const r = manifestSchema.safeParse(value);
  if (r.success) return { ok: true, manifest: r.data };
  return { ok: false, error: `not an Agentboard run manifest (${formatZodIssues(r.error).slice(0, 3).join("; ")})` };
}
