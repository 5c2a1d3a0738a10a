/**
 * Streams bytes to a file while hashing and counting them, and only then gives the file its
 * name: written beside the destination under a temporary name, checked, renamed. A reader of
 * the destination therefore sees nothing or a whole, verified copy, even across a crash, and a
 * concurrent writer of the same content-addressed name only ever replaces it with equal bytes.
 */
import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { BlobIntegrityError, BlobTooLargeError } from "./blob-store";

/** A counting, hashing pass-through that fails once more than `maxBytes` went by. */
export function meter(maxBytes: number, what: string): Transform & { digest(): { sha256: string; size: number } } {
  const hash = createHash("sha256");
  let size = 0;
  const t = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > maxBytes) return done(new BlobTooLargeError(size, maxBytes, what));
      hash.update(chunk);
      done(null, chunk);
    },
  });
  let result: { sha256: string; size: number } | undefined;
  return Object.assign(t, { digest: () => (result ??= { sha256: hash.digest("hex"), size }) });
}

/** The sha256 and size of a local file, read as a stream; refuses files above `maxBytes`. */
export async function hashFile(file: string, maxBytes = Number.MAX_SAFE_INTEGER): Promise<{ sha256: string; size: number }> {
  const m = meter(maxBytes, file);
  await pipeline(createReadStream(file), m, async function* (source) {
    for await (const _ of source) void _; // drain: only the meter's digest is wanted
  });
  return m.digest();
}

/** A temporary name beside `file`, unique per process and call, so renames stay on one filesystem. */
export const partName = (file: string): string => `${file}.${process.pid}.${randomBytes(6).toString("hex")}.part`;

/**
 * Writes `source` to `file` if and only if its bytes hash to `expect.sha256` (and fit in
 * `expect.maxBytes`); otherwise throws and leaves `file` as it was. `signal` stops the copy (a deadline).
 */
export async function writeVerified(source: Readable, file: string, expect: { sha256: string; maxBytes: number; what: string; signal?: AbortSignal }): Promise<{ size: number }> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = partName(file);
  const m = meter(expect.maxBytes, expect.what);
  try {
    await pipeline(source, m, createWriteStream(tmp, { flags: "wx" }), expect.signal ? { signal: expect.signal } : {});
    const { sha256, size } = m.digest();
    if (sha256 !== expect.sha256) throw new BlobIntegrityError(expect.sha256, sha256, expect.what);
    await rename(tmp, file);
    return { size };
  } catch (err) {
    source.destroy();
    await rm(tmp, { force: true });
    throw err;
  }
}

/** The sha256 and size of bytes in hand; refuses more than `maxBytes`. */
export function digestBytes(bytes: Uint8Array, maxBytes: number): { sha256: string; size: number } {
  if (bytes.length > maxBytes) throw new BlobTooLargeError(bytes.length, maxBytes, "the bytes to store");
  return { sha256: createHash("sha256").update(bytes).digest("hex"), size: bytes.length };
}

/** Bytes as a stream, for code that writes either kind of source the same way. */
export const streamOf = (bytes: Uint8Array): Readable => Readable.from([Buffer.from(bytes)]);
