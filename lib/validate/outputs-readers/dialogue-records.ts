/**
 * The waterfall's outputs files, read as records (outputs-reader.ts's RecordReader): `read`
 * needs only the file, so it may run on a worker thread (validate-worker.ts imports this
 * module and little else); `admit` checks each record against the ground-truth index and the
 * records before it, in bundle order.
 */
import { dialogueIndexOf } from "../../benchmark/capability-data";
import type { DiagnosticSink } from "../../formats/diagnostic";
import type { PredictedDialogue } from "../../formats/dialogue";
import { readPredictionFile } from "../../formats/read-dialogues";
import { itemKey } from "../../benchmark/item-key";
import type { DialogueRead, RecordReader } from "./outputs-reader";

export const dialogueRecords: RecordReader = {
  read(value, sink, domain, keep) {
    return readPredictionFile(value, sink, { fileDomain: domain }).map(({ record, dialogue: d }): DialogueRead => {
      const first = d.turns[0]?.calls[0];
      return {
        record,
        uuid: d.uuid,
        status: d.status,
        turnIds: d.turns.map((t) => t.turnId),
        prelude: first?.name === "get_data" && first.arguments.tool_universe_id === d.uuid,
        usage: Boolean(d.usage),
        ...(keep ? { dialogue: d } : {}),
      };
    });
  },

  admit({ cap: anyCap, domain, file, reads, sink, submission, ids, strings }) {
    const cap = dialogueIndexOf(anyCap);
    const bucket = submission.capabilities.get(cap.spec.id) ?? new Map<string, PredictedDialogue>();
    submission.capabilities.set(cap.spec.id, bucket);
    let usage = false;
    for (const r of reads) {
      const where = { record: r.record, uuid: r.uuid };
      const key = itemKey(cap.spec.id, r.uuid);
      const prior = submission.origins.get(key);
      if (prior) {
        sink.error("duplicate_uuid", `uuid already predicted at ${prior}; expected each uuid once per capability`, { ...where, path: `$[${r.record}].uuid` });
        continue;
      }
      submission.origins.set(key, `${file} record ${r.record}`);
      const gt = cap.byUuid.get(r.uuid);
      if (!gt) {
        sink.error("unknown_uuid", `uuid is not in the ground truth of ${cap.spec.directory}`, { ...where, path: `$[${r.record}].uuid` });
        continue;
      }
      if (gt.domain !== domain) {
        sink.error("wrong_domain_file", `uuid belongs to domain "${gt.domain}"; expected it in ${gt.domain}.json`, { ...where, path: `$[${r.record}].uuid` });
        continue;
      }
      checkTurns(r, gt.lastTurnId, sink);
      ids.add(gt.uuid);
      usage ||= r.usage;
      if (r.dialogue) {
        for (const t of r.dialogue.turns) if (t.responses) strings.value(t.responses);
        bucket.set(r.uuid, r.dialogue);
      }
    }
    return usage;
  },
};

/** Only the last ground-truth turn is scored: say so when the prediction cannot be paired with it. */
function checkTurns(r: DialogueRead, lastTurnId: number, sink: DiagnosticSink): void {
  const where = { record: r.record, uuid: r.uuid, path: `$[${r.record}].output` };
  if (r.status === "error" || r.turnIds.length === 0) return;
  if (!r.turnIds.includes(lastTurnId)) {
    if (r.turnIds.length === 1) {
      sink.warn("turn_id_mismatch", `predicted turn_id ${r.turnIds[0]} differs from the last ground-truth turn ${lastTurnId}; the single predicted turn is scored as turn ${lastTurnId}`, where);
    } else {
      sink.warn("last_turn_missing", `no predicted turn has turn_id ${lastTurnId} (the scored ground-truth turn); the dialogue scores 0`, where);
    }
  }
  if (r.prelude) {
    sink.warn("prelude_in_prediction", "prediction starts with get_data(tool_universe_id=<uuid>), which the environment calls before the agent starts", { ...where, path: `$[${r.record}].output[0].sequence.tool_call[0]` });
  }
}
