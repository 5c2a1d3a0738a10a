/**
 * A worker thread of file-threads.ts: checks the outputs files it is sent (outputs-file.ts)
 * and sends back each check, with the sha256 of the bytes it read for the bundle's hash.
 * It imports the file readers only, so it starts fast.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { recordReaderOf } from "./outputs-readers/record-readers";
import { pack, type ThreadReply, type ThreadRequest } from "./file-threads";
import type { ValidationLimits } from "./limits";
import { boundHeap, enableCollector } from "./heap-bound";
import { checkOutputsFile } from "./outputs-file";

const port = parentPort;
if (port) {
  const { limits, boundHeap: bounded } = workerData as { limits: ValidationLimits; boundHeap?: boolean };
  if (bounded) enableCollector();
  port.on("message", async (m: ThreadRequest) => {
    let reply: ThreadReply;
    try {
      let sha256: string | undefined;
      const read = async () => {
        if (m.abs === undefined) return Buffer.from(m.bytes!.buffer, m.bytes!.byteOffset, m.bytes!.byteLength);
        const bytes = readFileSync(m.abs);
        sha256 = createHash("sha256").update(bytes).digest("hex");
        return bytes;
      };
      const result = await checkOutputsFile({ size: m.size, read }, m.job, recordReaderOf(m.job.scorer), limits);
      reply = { id: m.id, result: pack(result), ...(sha256 ? { sha256 } : {}) };
    } catch (err) {
      reply = { id: m.id, error: err instanceof Error ? err.message : String(err) };
    }
    port.postMessage(reply);
    if (bounded) boundHeap();
  });
}
