/** Stage 1: the tool-use policy, checked by program against the scored turn's calls. */
import { findViolations, type ResolvedPolicy } from "../../benchmark/policy";
import type { ToolCall } from "../../formats/dialogue";
import { verdict, type Verdict } from "../verdict";

export function checkPolicy(policy: ResolvedPolicy, calls: readonly ToolCall[], turnId: number): Verdict {
  const base = { stage: "policy" as const, turnId, judge: "program" };
  if (policy.kind === "none") return verdict({ ...base, outcome: "skipped", score: null, reason: "the dialogue carries no tool-use policy" });
  if (policy.kind === "unchecked") {
    return verdict({ ...base, outcome: "unchecked", score: null, reason: `policy text maps to no rule in the benchmark's policy table: "${policy.text.slice(0, 160)}"` });
  }
  const violations = findViolations(policy.rule, calls);
  if (violations.length === 0) {
    return verdict({ ...base, outcome: "pass", score: 1, reason: `all ${calls.length} tool call(s) respect the ${policy.source} policy` });
  }
  return verdict({ ...base, outcome: "fail", score: 0, reason: `policy violated: ${violations.map((v) => `call #${v.index + 1} ${v.reason}`).join("; ")}` });
}
