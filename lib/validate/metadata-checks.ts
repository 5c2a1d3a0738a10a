/**
 * metadata.json / submission.yaml of a CLI bundle, held to what the GitHub form allows: no
 * control or bidirectional-override characters in any value, the form's lengths for the
 * fields it shares (agent name, maintainer, description, models) and a cap on every other
 * string. A refused metadata file is an error and is not kept in the report.
 */
import { childPath, type DiagnosticSink } from "../formats/diagnostic";
import { firstUnsafeChar, UNSAFE_TEXT_EXPECTED } from "../formats/text-safety";
import type { ValidationLimits } from "./limits";

type LimitName = "maxAgentNameChars" | "maxMaintainerChars" | "maxDescriptionChars" | "maxModelChars" | "maxMetadataValueChars" | "maxKeyChars";

const FIELD: Record<string, LimitName> = {
  agent_name: "maxAgentNameChars",
  agentName: "maxAgentNameChars",
  name: "maxAgentNameChars",
  maintainer: "maxMaintainerChars",
  description: "maxDescriptionChars",
  model: "maxModelChars",
  models: "maxModelChars",
};

/** Checks every key and string of the (depth-checked) metadata; returns the number of problems. */
export function checkMetadata(meta: Record<string, unknown>, sink: DiagnosticSink, limits: ValidationLimits): number {
  let problems = 0;
  const text = (s: string, path: string, limit: LimitName, what: string) => {
    if (s.length > limits[limit]) {
      problems++;
      sink.error("metadata_too_long", `${what} is ${s.length} characters long; expected at most ${limits[limit]} (limits.${limit})`, { path });
    }
    const bad = firstUnsafeChar(s);
    if (bad) {
      problems++;
      sink.error("metadata_unsafe_text", `${what} holds ${bad.codePoint} at index ${bad.index}; ${UNSAFE_TEXT_EXPECTED}`, { path });
    }
  };
  const walk = (v: unknown, path: string, limit: LimitName): void => {
    if (typeof v === "string") text(v, path, limit, "value");
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, childPath(path, i), limit));
    else if (typeof v === "object" && v !== null) {
      for (const [k, x] of Object.entries(v)) {
        const at = childPath(path, k.length > 40 ? `${k.slice(0, 40)}…` : k);
        text(k, at, "maxKeyChars", "key");
        walk(x, at, limit);
      }
    }
  };
  for (const [k, v] of Object.entries(meta)) {
    const at = childPath("$", k.length > 40 ? `${k.slice(0, 40)}…` : k);
    text(k, at, "maxKeyChars", "key");
    const limit = Object.hasOwn(FIELD, k) ? FIELD[k]! : "maxMetadataValueChars";
    if ((k === "models" || k === "model") && Array.isArray(v) && v.length > limits.maxModels) {
      problems++;
      sink.error("metadata_too_long", `lists ${v.length} models; expected at most ${limits.maxModels} (limits.maxModels)`, { path: at });
    }
    walk(v, at, limit);
  }
  return problems;
}
