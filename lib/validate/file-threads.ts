/**
 * Checking outputs files (outputs-file.ts) on several threads at once, so a large bundle uses
 * every core: the calling thread takes files from the same queue as the worker threads,
 * which also covers the time they take to start. The caller names the threads' entry
 * (validate-worker.ts, or the CLI bundle's copy of it): the engine starts none unless asked.
 * A folder's file is read by the thread that checks it (which hashes it for the bundle's
 * sha256); a ZIP entry is inflated here and its bytes moved, not copied. A worker that fails
 * leaves its files to the calling thread, which checks them the same way.
 */
import { Worker } from "node:worker_threads";
import type { DialogueRead } from "./outputs-readers/outputs-reader";
import { recordReaderOf } from "./outputs-readers/record-readers";
import type { ScorerName } from "../benchmark/spec";
import type { BundleFile } from "./bundle-source";
import type { ValidationLimits } from "./limits";
import { checkOutputsFile, type OutputsFileCheck, type OutputsFileJob } from "./outputs-file";

export interface FileThreadOptions {
  /** The worker threads' entry module: validate-worker.ts (with a TypeScript loader in execArgv) or its bundled .mjs. */
  entry: URL;
  /** Node flags for the threads, e.g. `["--import", "tsx"]` for a .ts entry. */
  execArgv?: string[];
  /** Worker threads to start besides the calling thread (one per core beyond it is the point). */
  count: number;
  /** Below this many bytes of such files, starting threads costs more than it saves: the calling thread reads them alone. */
  minBytes: number;
  /** Whether the calling thread checks files too (the default); false keeps its event loop free. */
  callingThread?: boolean;
}

export interface ThreadJob extends OutputsFileJob {
  scorer: ScorerName;
}

/** What a worker is sent: the file by path (a folder's) or by its bytes (a ZIP entry's). */
export interface ThreadRequest {
  id: number;
  size: number;
  abs?: string;
  bytes?: Uint8Array;
  job: ThreadJob;
}

/** A check as sent back: its records in columns (typed arrays clone as one copy; thousands of small objects do not). */
export interface PackedCheck extends Omit<OutputsFileCheck, "reads"> {
  reads: { record: Int32Array; uuid: string[]; error: Uint8Array; prelude: Uint8Array; usage: Uint8Array; turns: Int32Array; turnIds: Float64Array };
}

export type ThreadReply = { id: number; result: PackedCheck; sha256?: string } | { id: number; error: string };

export interface FileThreads {
  check(file: BundleFile, job: ThreadJob): Promise<OutputsFileCheck>;
  /** Files to keep queued beyond the one awaited so that no thread waits for work: more is only read ahead of a budget. */
  readonly depth: number;
  /** Stops the threads; files still queued are dropped (their checks never settle). */
  close(): Promise<void>;
}

interface Pending {
  file: BundleFile;
  job: ThreadJob;
  resolve(check: OutputsFileCheck): void;
  reject(err: unknown): void;
}

/** Each worker holds this many files at once, so it never waits for the next one. */
const IN_FLIGHT = 2;

export function pack(check: OutputsFileCheck): PackedCheck {
  const reads = check.reads;
  const turnIds: number[] = [];
  for (const r of reads) turnIds.push(...r.turnIds);
  return {
    ...check,
    reads: {
      record: Int32Array.from(reads, (r) => r.record),
      uuid: reads.map((r) => r.uuid),
      error: Uint8Array.from(reads, (r) => (r.status === "error" ? 1 : 0)),
      prelude: Uint8Array.from(reads, (r) => (r.prelude ? 1 : 0)),
      usage: Uint8Array.from(reads, (r) => (r.usage ? 1 : 0)),
      turns: Int32Array.from(reads, (r) => r.turnIds.length),
      turnIds: Float64Array.from(turnIds),
    },
  };
}

export function unpack(packed: PackedCheck): OutputsFileCheck {
  const p = packed.reads;
  const reads: DialogueRead[] = new Array(p.uuid.length);
  let t = 0;
  for (let i = 0; i < reads.length; i++) {
    const n = p.turns[i]!;
    reads[i] = { record: p.record[i]!, uuid: p.uuid[i]!, status: p.error[i] ? "error" : "success", turnIds: Array.from(p.turnIds.subarray(t, t + n)), prelude: p.prelude[i] === 1, usage: p.usage[i] === 1 };
    t += n;
  }
  return { ...packed, reads };
}

/** `boundHeap`: the worker threads collect garbage between files when their heap has grown (heap-bound.ts). */
export function startFileThreads(opts: FileThreadOptions, limits: ValidationLimits, boundHeap = false): FileThreads {
  const queue: Pending[] = [];
  let closed = false;
  let localBusy = false;
  const onThisThread = (p: Pending) => checkOutputsFile(p.file, p.job, recordReaderOf(p.job.scorer), limits).then(p.resolve, p.reject);
  let nextId = 0;
  const workers = Array.from({ length: Math.max(0, opts.count) }, () => {
    const worker = new Worker(opts.entry, { workerData: { limits, boundHeap }, ...(opts.execArgv ? { execArgv: opts.execArgv } : {}) });
    const w = { worker, live: true, inFlight: new Map<number, Pending>() };
    worker.on("message", (reply: ThreadReply) => {
      const p = w.inFlight.get(reply.id);
      if (!p) return;
      w.inFlight.delete(reply.id);
      if ("result" in reply) {
        if (reply.sha256) p.file.sha256 = reply.sha256;
        p.resolve(unpack(reply.result));
      } else void onThisThread(p);
      pump();
    });
    const fail = () => {
      if (!w.live) return;
      w.live = false;
      queue.unshift(...w.inFlight.values());
      w.inFlight.clear();
      pump();
    };
    worker.on("error", fail);
    worker.on("exit", fail);
    return w;
  });

  /** Hands out queued files: to workers with room, and one at a time to this thread. */
  function pump(): void {
    for (const w of workers) {
      while (w.live && w.inFlight.size < IN_FLIGHT && queue.length > 0) send(w, queue.shift()!);
    }
    const workersLeft = workers.some((w) => w.live);
    if (!localBusy && queue.length > 0 && (opts.callingThread !== false || !workersLeft)) {
      localBusy = true;
      const p = queue.shift()!;
      void onThisThread(p).finally(() => {
        localBusy = false;
        // Let the workers' replies in before taking the next file.
        setImmediate(pump);
      });
    }
  }

  function send(w: (typeof workers)[number], p: Pending): void {
    const id = nextId++;
    w.inFlight.set(id, p);
    if (p.file.absPath) {
      w.worker.postMessage({ id, size: p.file.size, abs: p.file.absPath, job: p.job } satisfies ThreadRequest);
      return;
    }
    // A ZIP entry: inflated here (unless its size is refused: the worker then says so unread).
    const bytes = p.file.size > limits.maxFileBytes ? Promise.resolve(Buffer.alloc(0)) : p.file.read();
    bytes.then(
      (b) => {
        if (!w.live) return;
        const whole = b.byteOffset === 0 && b.byteLength === b.buffer.byteLength;
        w.worker.postMessage({ id, size: p.file.size, bytes: new Uint8Array(b.buffer, b.byteOffset, b.byteLength), job: p.job } satisfies ThreadRequest, whole ? [b.buffer as ArrayBuffer] : []);
      },
      // An entry that cannot be read: checked here, where the same read fails with the same diagnostic.
      () => {
        w.inFlight.delete(id);
        void onThisThread(p);
        pump();
      },
    );
  }

  return {
    check(file, job) {
      if (closed) return checkOutputsFile(file, job, recordReaderOf(job.scorer), limits);
      return new Promise<OutputsFileCheck>((resolve, reject) => {
        queue.push({ file, job, resolve, reject });
        pump();
      });
    },
    depth: (workers.length + 1) * IN_FLIGHT,
    async close() {
      closed = true;
      // Validation stopped early (a budget spent) needs none of them: this thread takes no more either.
      queue.length = 0;
      for (const w of workers) w.live = false;
      await Promise.all(workers.map((w) => w.worker.terminate()));
    },
  };
}
