/**
 * The waterfall's ground truth: VAKRA-style dialogue files, one per domain. A dialogue's
 * policy text comes from the input file when the ground truth has none (VAKRA keeps it there).
 */
import type { DiagnosticSink } from "../../formats/diagnostic";
import type { GroundTruthDialogue } from "../../formats/dialogue";
import { readGroundTruthFile } from "../../formats/read-dialogues";
import { dialogueCapability, type DialogueCapability } from "../capability-data";
import type { CapabilityLoader } from "./capability-loader";

export const dialogueLoader: CapabilityLoader = {
  readsPythonValues: true,

  async load({ spec, files, read, readInput, collect, strings }) {
    const data: DialogueCapability = { kind: "dialogues", spec, domains: new Map(), byUuid: new Map() };
    for (const f of files) {
      const file = await read(f);
      if (!file) continue;
      const { domain, sink } = file;
      const dialogues = readGroundTruthFile(file.value, sink, { fileDomain: domain });
      if (spec.policies && dialogues.some((d) => d.instructions === "" && !d.policy)) {
        const input = await readInput(f);
        if (input) fillInstructions(dialogues, input.value, input.sink);
        if (input) collect(input.sink);
      }
      for (const d of dialogues) {
        for (const t of d.turns) if (t.responses) strings.value(t.responses);
        const prior = data.byUuid.get(d.uuid);
        if (prior) sink.error("duplicate_uuid", `uuid appears twice in capability ${spec.id} (also in ${prior.domain}.json)`, { uuid: d.uuid });
        else data.byUuid.set(d.uuid, d);
      }
      collect(sink);
      data.domains.set(domain, dialogues);
    }
    return data;
  },

  groundTruthView(cap, uuid) {
    const last = dialogueCapability(cap).byUuid.get(uuid)?.turns.at(-1);
    return last ? { answer: last.answer, calls: last.calls.map((c) => ({ name: c.name, arguments: c.arguments })) } : null;
  },
};

/**
 * VAKRA's own data keeps a dialogue's policy (`additional_instructions`) in the input file,
 * not in the ground truth: take it from there when the ground truth has none, so the policy
 * stage runs instead of silently passing.
 */
function fillInstructions(dialogues: GroundTruthDialogue[], input: unknown, sink: DiagnosticSink): void {
  if (!Array.isArray(input)) {
    sink.warn("input_not_an_array", "expected a top-level array of input records; its policies are not read", { path: "$" });
    return;
  }
  const byUuid = new Map<string, string>();
  input.forEach((r, record) => {
    if (!r || typeof r !== "object" || Array.isArray(r)) return;
    const { uuid, additional_instructions: text } = r as Record<string, unknown>;
    if ((typeof uuid === "string" || typeof uuid === "number") && typeof text === "string" && text.trim() !== "") byUuid.set(String(uuid), text);
    else if (text !== undefined && text !== null && typeof text !== "string") {
      sink.warn("bad_instructions", `expected a string, found ${typeof text}; ignored`, { record, path: `$[${record}].additional_instructions` });
    }
  });
  let filled = 0;
  for (const d of dialogues) {
    const text = d.instructions === "" && !d.policy ? byUuid.get(d.uuid) : undefined;
    if (text === undefined) continue;
    d.instructions = text;
    filled++;
  }
  if (filled) sink.warn("policy_from_input", `${filled} dialogue(s) take their additional_instructions from the input file, as VAKRA's data keeps them there`);
}
