/**
 * Item weights. A multi-source item's scored turn uses both an API tool and a retriever
 * tool; the benchmark may weigh those more (VAKRA: ×2 in the policy capability).
 */
import type { GroundTruthDialogue, ToolCall } from "../formats/dialogue";
import type { CapabilitySpec } from "./spec";
import { matchesAny } from "./tool-glob";

export type SourceKind = "multi_source" | "api_only" | "rag_only" | "none";

/** A retrieval with the query "NONE" marks a lookup the policy blocked: not a source. */
function isBlockedRetrieval(call: ToolCall): boolean {
  const q = call.arguments.query ?? call.arguments.question;
  return typeof q === "string" && q.trim().toUpperCase() === "NONE";
}

export function classifySources(calls: readonly ToolCall[], retrieverGlobs: readonly string[]): SourceKind {
  let api = false;
  let rag = false;
  for (const c of calls) {
    if (matchesAny(c.name, retrieverGlobs)) rag ||= !isBlockedRetrieval(c);
    else api = true;
  }
  return api && rag ? "multi_source" : api ? "api_only" : rag ? "rag_only" : "none";
}

export function itemWeight(cap: CapabilitySpec, gt: GroundTruthDialogue, retrieverGlobs: readonly string[]): { weight: number; sources: SourceKind } {
  const last = gt.turns[gt.turns.length - 1];
  const sources = last ? classifySources(last.calls, retrieverGlobs) : "none";
  return { weight: sources === "multi_source" ? cap.weights.multiSource : 1, sources };
}
