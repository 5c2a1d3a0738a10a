/**
 * Tool-use policies, checked by program. A dialogue's policy is its structured `policy`
 * field, else its instruction text looked up in the benchmark's policy table. Text that maps
 * to nothing is `unchecked`: reported and counted, never treated as a pass.
 */
import type { GroundTruthDialogue, ToolCall, ToolPolicy } from "../formats/dialogue";
import type { PolicyRule } from "./spec";
import { matchesAny } from "./tool-glob";

export type ResolvedPolicy =
  | { kind: "none" }
  | { kind: "rule"; source: "structured" | "table"; rule: ToolPolicy }
  | { kind: "unchecked"; text: string };

export function normalisePolicyText(text: string): string {
  return text.trim().replace(/\s+/g, " ");
}

export function policyTableIndex(table: readonly PolicyRule[]): Map<string, ToolPolicy> {
  const index = new Map<string, ToolPolicy>();
  for (const r of table) index.set(normalisePolicyText(r.text), { allowTools: r.allowTools, denyTools: r.denyTools });
  return index;
}

export function resolvePolicy(gt: GroundTruthDialogue, table: Map<string, ToolPolicy>): ResolvedPolicy {
  if (gt.policy && (gt.policy.allowTools || gt.policy.denyTools)) return { kind: "rule", source: "structured", rule: gt.policy };
  const text = normalisePolicyText(gt.instructions);
  if (text === "") return { kind: "none" };
  const rule = table.get(text);
  return rule ? { kind: "rule", source: "table", rule } : { kind: "unchecked", text };
}

export interface PolicyViolation {
  call: string;
  index: number;
  reason: string;
}

/** Every call must match an allow glob (when given) and no deny glob. */
export function findViolations(rule: ToolPolicy, calls: readonly ToolCall[]): PolicyViolation[] {
  const out: PolicyViolation[] = [];
  calls.forEach((c, index) => {
    if (rule.denyTools && matchesAny(c.name, rule.denyTools)) {
      out.push({ call: c.name, index, reason: `${c.name} matches a denied pattern (${rule.denyTools.join(", ")})` });
    } else if (rule.allowTools && !matchesAny(c.name, rule.allowTools)) {
      out.push({ call: c.name, index, reason: `${c.name} is not among the allowed tools (${rule.allowTools.join(", ")})` });
    }
  });
  return out;
}
