/**
 * `benchmark init --from-vakra`: the benchmark.yaml a folder of VAKRA's data describes, and the
 * files a standalone Agentboard benchmark folder needs from it. Everything written is inferred
 * from VAKRA's facts or from the data; what cannot be inferred is refused or said, never made up:
 *
 * - capabilities: VAKRA's four folders (capability_1_bi_apis … capability_4_multiturn) with
 *   their labels; capability 4 carries tool-use policies and its multi-source items (the scored
 *   turn uses an API tool and a retriever) weigh 2, as VAKRA weighs them. Any other
 *   `capability_N_` folder is refused: its label, scorer and weights are unknown.
 * - policies: one rule per `additional_instructions` text whose ground truth shows what it
 *   blocks. VAKRA's ground truth marks a retrieval the policy forbids by calling that retriever
 *   with the query "NONE"; the rule denies the retrievers a text's dialogues only ever call so
 *   (never with a real query, and never in a scored turn, which a rule would then fail). A
 *   text with no such evidence gets no rule: its dialogues are scored `policy_unchecked`.
 * - not inferred: slug, title and version (VAKRA's, to be edited), and tool servers (no
 *   `environment`: scoring replays the bundle's own tool responses until they are declared).
 */
import type { GroundTruthDialogue } from "../formats/dialogue";
import { dialogueCapability } from "./capability-data";
import { resolveLayout, type LayoutKind } from "./ground-truth-layout";
import { itemWeight } from "./item-weight";
import { BenchmarkError, loadBenchmark } from "./load-benchmark";
import { normalisePolicyText } from "./policy";
import { benchmarkSpecSchema, type BenchmarkSpecInput, type PolicyRule } from "./spec";
import { matchesAny } from "./tool-glob";
import { vakraDefaults } from "./vakra-defaults";

export interface ImportedCapability {
  id: string;
  label: string;
  directory: string;
  domains: number;
  dialogues: number;
  /** Items whose scored turn uses an API tool and a retriever (weight `weight`). */
  multiSource: number;
  weight: number;
}

export interface PolicyWithoutRule {
  text: string;
  dialogues: number;
  why: string;
}

export interface VakraImport {
  layout: LayoutKind;
  spec: BenchmarkSpecInput;
  capabilities: ImportedCapability[];
  /** Rules written, with the dialogues each covers. */
  rules: { rule: PolicyRule; dialogues: number }[];
  unchecked: PolicyWithoutRule[];
  /** Files a standalone benchmark folder copies: absolute source → path inside the new folder. */
  copies: { from: string; to: string }[];
  /** Facts about the data worth saying (ground truth read from input files, …). */
  notes: string[];
}

/** Reads a VAKRA data folder; throws BenchmarkError naming each thing it cannot infer or read. */
export async function importVakra(root: string): Promise<VakraImport> {
  const layout = resolveLayout(root);
  if (layout.problems.length) throw new BenchmarkError(layout.problems);
  if (layout.kind === "agentboard") {
    throw new BenchmarkError([
      layout.folders.size > 0
        ? `${root}: already an Agentboard benchmark folder (groundtruth/<capability_dir>/); write its benchmark.yaml by hand`
        : `${root}: no VAKRA capability folder (capability_<n>_<name>/ holding input/ and output/ as in VAKRA's data/test, or input.json and output.json as in its sample_data)`,
    ]);
  }
  const problems: string[] = [];
  const known: (typeof vakraDefaults.capabilities)[number][] = [];
  for (const folder of layout.folders.values()) {
    const cap = vakraDefaults.capabilities.find((c) => c.directory === folder.directory);
    if (!cap) {
      const names = vakraDefaults.capabilities.map((c) => c.directory).join(", ");
      problems.push(`${folder.directory}: not one of VAKRA's capabilities (${names}); its label, scorer and weights cannot be inferred: add it to benchmark.yaml by hand`);
    } else if (folder.problem) problems.push(folder.problem);
    else known.push(cap);
  }
  if (problems.length) throw new BenchmarkError(problems);

  const draft: BenchmarkSpecInput = { ...vakraDefaults, capabilities: known };
  const benchmark = await loadBenchmark(root, { spec: benchmarkSpecSchema.parse(draft) });
  const globs = benchmark.spec.retrieverTools;
  const capabilities: ImportedCapability[] = [];
  const byText = new Map<string, GroundTruthDialogue[]>();
  for (const data of benchmark.capabilities) {
    const cap = dialogueCapability(data);
    let multiSource = 0;
    for (const gt of cap.byUuid.values()) {
      if (itemWeight(cap.spec, gt, globs).sources === "multi_source") multiSource++;
      const text = normalisePolicyText(gt.instructions);
      if (cap.spec.policies && text !== "" && !gt.policy) byText.set(text, [...(byText.get(text) ?? []), gt]);
    }
    capabilities.push({ id: cap.spec.id, label: cap.spec.label, directory: cap.spec.directory, domains: cap.domains.size, dialogues: cap.byUuid.size, multiSource, weight: cap.spec.weights.multiSource });
  }

  const rules: VakraImport["rules"] = [];
  const unchecked: PolicyWithoutRule[] = [];
  for (const [text, dialogues] of [...byText].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const inferred = inferDenied(dialogues, globs);
    if ("why" in inferred) unchecked.push({ text, dialogues: dialogues.length, why: inferred.why });
    else rules.push({ rule: { text, denyTools: inferred.deny }, dialogues: dialogues.length });
  }

  const copies: VakraImport["copies"] = [];
  const notes: string[] = [];
  for (const cap of known) {
    const folder = layout.folders.get(cap.directory)!;
    if (folder.note) notes.push(`${cap.directory}: ${folder.note}`);
    for (const [file, { groundTruth, input }] of folder.files) {
      copies.push({ from: groundTruth.abs, to: `groundtruth/${cap.directory}/${file}` });
      if (input) copies.push({ from: input.abs, to: `input/${cap.directory}/${file}` });
    }
  }
  const spec: BenchmarkSpecInput = { ...draft, ...(rules.length ? { policyTable: rules.map((r) => r.rule) } : {}) };
  return { layout: layout.kind, spec, capabilities, rules, unchecked, copies, notes };
}

const isBlocked = (args: Record<string, unknown>) => {
  const q = args.query ?? args.question;
  return typeof q === "string" && q.trim().toUpperCase() === "NONE";
};

/** The retrievers a policy text's dialogues show it blocks, or why none can be named. */
function inferDenied(dialogues: readonly GroundTruthDialogue[], globs: readonly string[]): { deny: string[] } | { why: string } {
  const blocked = new Set<string>();
  const used = new Set<string>();
  const inScoredTurn = new Set<string>();
  for (const gt of dialogues) {
    gt.turns.forEach((turn, t) => {
      for (const call of turn.calls) {
        if (!matchesAny(call.name, globs)) continue;
        if (!isBlocked(call.arguments)) used.add(call.name);
        else {
          blocked.add(call.name);
          if (t === gt.turns.length - 1) inScoredTurn.add(call.name);
        }
      }
    });
  }
  const deny = [...blocked].filter((name) => !used.has(name) && !inScoredTurn.has(name) && !name.includes("*")).sort();
  if (deny.length) return { deny };
  if (blocked.size === 0) return { why: `its ground truth calls no retriever with the query "NONE", so what it blocks is not shown` };
  return { why: `the retrievers its ground truth blocks (${[...blocked].sort().join(", ")}) are also called with a real query, or blocked in a scored turn, so a rule denying them would fail the ground truth` };
}
