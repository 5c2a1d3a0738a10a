/**
 * `agentboard verify`'s comparison: a run as it was recorded (its manifest, its items, the
 * grades it used) against the same bundle scored again here. Per capability and per item it
 * says identical or different, and why, by kind:
 *
 * - bundle: the bundle's sha256 (or its trials) differs;
 * - benchmark: its slug, version or content hash differs (naming the part: ground truth, spec,
 *   environment, other files);
 * - version: the Agentboard version (or, when both are known, the commit) or the bootstrap seed differs;
 * - judge: a verdict differs or is missing, or the judge's kind, model or a prompt hash differs;
 * - replay: the replay mode or the ground-truth replay hash differs.
 *
 * An item differs when its status, stage or score does; its reasons are the judge's where one of
 * its grades was missing or changed, else the run-level kinds that differ.
 */
import type { ItemResult } from "./item-result";
import { trialItemKey } from "../benchmark/item-key";
import { askedNoModel, gradeDigestLine, gradesDigest, judgePromptHashes, trialOf, type AgentboardVersion, type RunManifest } from "./manifest";
import type { ExportedGrade, ExportedItem, VerdictExport } from "../judges/verdict-file";

export type DifferenceKind = "bundle" | "benchmark" | "version" | "judge" | "replay";
export const DIFFERENCE_KINDS: readonly DifferenceKind[] = ["bundle", "benchmark", "version", "judge", "replay"];

export interface Difference {
  kind: DifferenceKind;
  message: string;
}

export interface ItemComparison {
  capability: string;
  uuid: string;
  trial: number;
  identical: boolean;
  recorded: { status: string; stage: string; score: number } | null;
  rescored: { status: string; stage: string; score: number } | null;
  /** Why it differs (empty when identical). */
  why: Difference[];
}

export interface CapabilityComparison {
  capability: string;
  identical: boolean;
  /** Weighted mean × 100 over the items, recorded and re-scored. */
  recorded: number | null;
  rescored: number | null;
  items: number;
  different: number;
}

export interface VerifyReport {
  schema: "agentboard.verify/1";
  identical: boolean;
  /** Every kind of difference found, run-level and per item. */
  kinds: DifferenceKind[];
  run: Difference[];
  /** Things that did not decide the outcome but a reader should know (a commit not recorded…). */
  notes: string[];
  capabilities: CapabilityComparison[];
  /** Items that differ (all of them; identical items are only counted). */
  items: ItemComparison[];
  counts: { items: number; identical: number; different: number };
}

export interface VerifyInput {
  /** The run as recorded: its manifest, its items and the grades it used (when known). */
  recorded: { manifest: RunManifest; items: readonly ExportedItem[]; grades: Readonly<Record<string, ExportedGrade>> | null };
  /** The verdicts the re-score answered from (null for the rules judge). */
  verdicts: VerdictExport | null;
  /** The re-score: its manifest, its items, and what Agentboard is here. */
  rescored: { manifest: RunManifest; items: readonly ItemResult[]; agentboard: AgentboardVersion };
}

const short = (h: string | null | undefined) => (h ? h.slice(0, 12) : "none");
const SCORE_EPSILON = 1e-9;

/** The run-level differences: every manifest field that decides numbers, recorded against here. */
function runDifferences(input: VerifyInput, notes: string[]): Difference[] {
  const ref = input.recorded.manifest;
  const now = input.rescored.manifest;
  const out: Difference[] = [];
  const add = (kind: DifferenceKind, message: string) => out.push({ kind, message });

  if (ref.bundle.sha256 !== now.bundle.sha256) add("bundle", `the bundle's sha256 is ${short(now.bundle.sha256)}, the run's was ${short(ref.bundle.sha256)}`);
  if (ref.trials !== now.trials) add("bundle", `the bundle holds ${now.trials} trial(s), the run had ${ref.trials}`);

  if (ref.benchmark.slug !== now.benchmark.slug || ref.benchmark.version !== now.benchmark.version) {
    add("benchmark", `the benchmark is ${now.benchmark.slug} ${now.benchmark.version}, the run's was ${ref.benchmark.slug} ${ref.benchmark.version}`);
  } else if (ref.benchmark.contentHash !== now.benchmark.contentHash) {
    const parts = ref.benchmark.parts && now.benchmark.parts ? (Object.keys(now.benchmark.parts) as (keyof typeof now.benchmark.parts)[]).filter((p) => ref.benchmark.parts![p] !== now.benchmark.parts![p]) : [];
    const named = parts.map((p) => ({ groundTruth: "ground truth", files: "other files (input, evaluator files)", spec: "spec (benchmark.yaml)", environment: "environment declaration" })[p]);
    add("benchmark", `the benchmark's content hash is ${short(now.benchmark.contentHash)}, the run's was ${short(ref.benchmark.contentHash)}${named.length ? ` (${named.join(", ")} differ)` : ""}`);
  }

  const here = input.rescored.agentboard;
  if (ref.agentboard.version !== here.version) add("version", `Agentboard here is ${here.version}, the run was scored by ${ref.agentboard.version}`);
  else if (ref.agentboard.commit && here.commit && ref.agentboard.commit !== here.commit) add("version", `Agentboard here is commit ${here.commit}, the run was scored at commit ${ref.agentboard.commit}`);
  else if (!ref.agentboard.commit || !here.commit) notes.push(`the commit is not known ${!ref.agentboard.commit ? "for the run" : "here"}: only the version (${here.version}) was compared`);
  if (ref.seed !== now.seed) add("version", `the bootstrap seed here is ${now.seed}, the run's was ${ref.seed}`);

  if (ref.replay.mode !== now.replay.mode) add("replay", `replayed with ${now.replay.mode}, the run with ${ref.replay.mode}`);
  else if (ref.groundTruthReplay.hash !== now.groundTruthReplay.hash) add("replay", `the ground-truth responses hash to ${short(now.groundTruthReplay.hash)}, the run's to ${short(ref.groundTruthReplay.hash)}`);

  if (!askedNoModel(ref.judge)) {
    const v = input.verdicts;
    if (v && (v.judge.kind !== ref.judge.kind || v.judge.model !== ref.judge.model)) add("judge", `the verdicts are ${v.judge.id}'s, the run's judge was ${ref.judge.kind}${ref.judge.model ? `:${ref.judge.model}` : ""}`);
    const hashes = judgePromptHashes();
    const changed = Object.keys(ref.judge.promptHashes).filter((k) => ref.judge.promptHashes[k] !== hashes[k]);
    if (changed.length) add("judge", `prompt hash differs for ${changed.join(", ")}: the judge's prompts changed since the run`);
    if (v) {
      const withheld = Object.values(v.grades).filter((g) => g.withheld).length;
      if (withheld) add("judge", `${withheld} verdict(s) are withheld from this export (they name reference fields; the benchmark keeps its ground truth private)`);
      const runGrades = input.recorded.grades;
      if (runGrades) {
        const edited = Object.keys(runGrades).filter((k) => Object.hasOwn(v.grades, k) && gradeDigestLine(k, v.grades[k]!) !== gradeDigestLine(k, runGrades[k]!));
        const missing = Object.keys(runGrades).filter((k) => !Object.hasOwn(v.grades, k));
        if (edited.length) add("judge", `${edited.length} verdict(s) in the verdicts file differ from the run's`);
        if (missing.length) add("judge", `${missing.length} of the run's verdict(s) are missing from the verdicts file`);
      } else if (!withheld && ref.verdicts.gradesDigest !== gradesDigest(Object.entries(v.grades))) add("judge", `the verdicts file's grades digest differs from the run's (${short(ref.verdicts.gradesDigest)})`);
    }
  } else if (now.judge.kind !== ref.judge.kind) add("judge", `re-scored with ${now.judge.kind}, the run used ${ref.judge.kind}`);
  return out;
}

/** Why one item differs: the judge's grades it used, else the run-level kinds. */
function itemReasons(recorded: ExportedItem | undefined, rescored: ItemResult | undefined, input: VerifyInput, run: Difference[]): Difference[] {
  const why: Difference[] = [];
  if (!recorded) return [{ kind: "bundle", message: "not in the recorded run" }];
  if (!rescored) return [{ kind: run.some((d) => d.kind === "benchmark") ? "benchmark" : "bundle", message: "not scored here" }];
  const used = rescored.grades ?? [];
  const missing = used.filter((g) => g.outcome === "unjudged" && !Object.hasOwn(input.verdicts?.grades ?? {}, g.key));
  if (missing.length) why.push({ kind: "judge", message: `${missing.length} verdict(s) not in the exported verdicts (a prompt the run never asked, or one the file lacks)` });
  const ref = input.recorded.grades;
  if (ref) {
    const edited = used.filter((g) => !missing.includes(g) && Object.hasOwn(ref, g.key) && gradeDigestLine(g.key, g) !== gradeDigestLine(g.key, ref[g.key]!));
    if (edited.length) why.push({ kind: "judge", message: `${edited.length} verdict(s) differ from the run's (${edited.map((g) => `${g.kind}: ${ref[g.key]!.outcome} → ${g.outcome}`).join(", ")})` });
  }
  if (why.length) return why;
  const kinds = [...new Set(run.map((d) => d.kind))];
  const what: Record<DifferenceKind, string> = { bundle: "the bundle", benchmark: "the benchmark", version: "Agentboard's version", judge: "the judge", replay: "the ground-truth replay" };
  return kinds.length ? kinds.map((kind) => ({ kind, message: `${what[kind]} differs (above)` })) : [{ kind: "version", message: "no recorded input differs: scoring itself gave another result" }];
}

export function compareRuns(input: VerifyInput): VerifyReport {
  const notes: string[] = [];
  const run = runDifferences(input, notes);
  const recorded = new Map(input.recorded.items.map((i) => [trialItemKey(i.capability, i.uuid, i.trial), i]));
  const rescored = new Map(input.rescored.items.map((i) => [trialItemKey(i.capability, i.uuid, trialOf(i)), i]));
  const keys = [...new Set([...recorded.keys(), ...rescored.keys()])].sort();
  const items: ItemComparison[] = [];
  const perCap = new Map<string, { items: number; different: number; ref: [number, number]; now: [number, number] }>();
  let identicalCount = 0;
  for (const k of keys) {
    const r = recorded.get(k);
    const n = rescored.get(k);
    const [capability, uuid, trial] = k.split("\0") as [string, string, string];
    const cap = perCap.get(capability) ?? { items: 0, different: 0, ref: [0, 0], now: [0, 0] };
    perCap.set(capability, cap);
    cap.items++;
    if (r) (cap.ref[0] += r.weight * r.score), (cap.ref[1] += r.weight);
    if (n) (cap.now[0] += n.weight * n.score), (cap.now[1] += n.weight);
    const same = !!r && !!n && r.status === n.status && r.stage === n.stage && Math.abs(r.score - n.score) <= SCORE_EPSILON;
    if (same) {
      identicalCount++;
      continue;
    }
    cap.different++;
    items.push({
      capability,
      uuid,
      trial: Number(trial),
      identical: false,
      recorded: r ? { status: r.status, stage: r.stage, score: r.score } : null,
      rescored: n ? { status: n.status, stage: n.stage, score: n.score } : null,
      why: itemReasons(r, n, input, run),
    });
  }
  // Every item's numbers match, yet some stage's verdict changed: the digest says so.
  if (items.length === 0 && input.recorded.items.length > 0 && input.recorded.manifest.verdicts.digest !== input.rescored.manifest.verdicts.digest) {
    run.push({ kind: "judge", message: "the verdict digest differs: a stage's verdict changed without changing any item's score" });
  }
  const mean = ([sum, w]: [number, number]) => (w > 0 ? (100 * sum) / w : null);
  const capabilities = [...perCap].map(([capability, c]): CapabilityComparison => ({ capability, identical: c.different === 0, recorded: mean(c.ref), rescored: mean(c.now), items: c.items, different: c.different }));
  const kinds = DIFFERENCE_KINDS.filter((kind) => run.some((d) => d.kind === kind) || items.some((i) => i.why.some((d) => d.kind === kind)));
  return {
    schema: "agentboard.verify/1",
    identical: run.length === 0 && items.length === 0,
    kinds,
    run,
    notes,
    capabilities,
    items,
    counts: { items: keys.length, identical: identicalCount, different: items.length },
  };
}
