/**
 * The loaded ground truth of one capability: dialogues (the waterfall) or dataset items (an
 * evaluator). Which one is the capability kind's business: its loader builds it
 * (`capability-loaders/`), its outputs reader and scorer narrow with `dialogueCapability` /
 * `datasetCapability`.
 */
import type { GroundTruthDialogue } from "../formats/dialogue";
import type { EvalItem } from "../formats/eval-dataset";
import type { EvaluatorRecipe } from "../evaluators/from-config";
import type { CapabilitySpec } from "./spec";

/** A capability scored by the waterfall: VAKRA-style dialogues. */
export interface DialogueCapability {
  kind: "dialogues";
  spec: CapabilitySpec;
  /** Ground truth per domain, in file order. */
  domains: Map<string, GroundTruthDialogue[]>;
  byUuid: Map<string, GroundTruthDialogue>;
}

/** A capability scored by an evaluator (qa, trajectory, report): NVIDIA-style dataset items. */
export interface DatasetCapability {
  kind: "dataset";
  spec: CapabilitySpec;
  /** The items this capability scores (routed to its evaluator), per domain, in file order. */
  domains: Map<string, DatasetItem[]>;
  byUuid: Map<string, DatasetItem>;
  /** Every item per domain, with conversation turns routed elsewhere: they give later turns their history. */
  entries: Map<string, DatasetItem[]>;
  /** Builds the capability's evaluator around the run's judge. */
  evaluator: EvaluatorRecipe;
}

export type CapabilityData = DialogueCapability | DatasetCapability;

/** One ground-truth dialogue as validation sees it (ground-truth-index.ts). */
export interface IndexedDialogue {
  uuid: string;
  domain: string;
  /** turn_id of the last ground-truth turn (the scored one). */
  lastTurnId: number;
}

/** What validation needs of a waterfall capability: its dialogues' uuids, domains and last turns. */
export interface DialogueIndex {
  kind: "dialogue-index";
  spec: CapabilitySpec;
  /** Per domain, in file order. */
  domains: Map<string, IndexedDialogue[]>;
  byUuid: Map<string, IndexedDialogue>;
}

/** A capability as validation sees it: a waterfall capability's index, or an evaluator capability's dataset. */
export type IndexedCapability = DialogueIndex | DatasetCapability;

/** A dataset entry (or one turn of a conversation) with its reference report read. */
export interface DatasetItem extends Omit<EvalItem, "history" | "output"> {
  /** The item's id, named like a dialogue's uuid so every capability's items key alike. */
  uuid: string;
  domain: string;
}

/** The capability as dialogues; throws for an evaluator capability (a caller's mistake). */
export function dialogueCapability(cap: CapabilityData): DialogueCapability {
  if (cap.kind !== "dialogues") throw new Error(`capability ${cap.spec.id} is scored by ${cap.spec.scorer}, not by the waterfall`);
  return cap;
}

/** What validation needs of a loaded capability: a waterfall capability's index, an evaluator's dataset as it is. */
export function indexCapability(cap: CapabilityData): IndexedCapability {
  if (cap.kind === "dataset") return cap;
  const domains = new Map<string, IndexedDialogue[]>();
  for (const [domain, dialogues] of cap.domains) domains.set(domain, dialogues.map((d) => ({ uuid: d.uuid, domain: d.domain, lastTurnId: d.turns[d.turns.length - 1]!.turnId })));
  return dialogueIndex(cap.spec, domains);
}

export function dialogueIndex(spec: CapabilitySpec, domains: Map<string, IndexedDialogue[]>): DialogueIndex {
  const byUuid = new Map<string, IndexedDialogue>();
  for (const list of domains.values()) for (const d of list) if (!byUuid.has(d.uuid)) byUuid.set(d.uuid, d);
  return { kind: "dialogue-index", spec, domains, byUuid };
}

/** The capability as a waterfall index; throws for an evaluator capability (a caller's mistake). */
export function dialogueIndexOf(cap: IndexedCapability): DialogueIndex {
  if (cap.kind !== "dialogue-index") throw new Error(`capability ${cap.spec.id} is scored by ${cap.spec.scorer}, not by the waterfall`);
  return cap;
}

/** The capability as dataset items; throws for a waterfall capability (a caller's mistake). */
export function datasetCapability(cap: CapabilityData | IndexedCapability): DatasetCapability {
  if (cap.kind !== "dataset") throw new Error(`capability ${cap.spec.id} is scored by the waterfall, not by an evaluator`);
  return cap;
}
