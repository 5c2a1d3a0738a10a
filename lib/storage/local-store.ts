/**
 * The default store: a local folder, `<root>/sha256/<aa>/<hash>`. Every write goes through a
 * temporary file and a rename (verified-file.ts), so a crash or a concurrent put of the same
 * blob never leaves a partial object under a hash's name.
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import { BlobIntegrityError, BlobNotFoundError, BlobTooLargeError, assertSha256, blobKey, type BlobSource, type BlobStore, type PutResult } from "./blob-store";
import { digestBytes, hashFile, streamOf, writeVerified } from "./verified-file";

export interface LocalStoreOptions {
  maxBytes: number;
}

export function localBlobStore(root: string, opts: LocalStoreOptions): BlobStore {
  const base = path.resolve(root);
  const { maxBytes } = opts;
  const fileOf = (sha: string) => path.join(base, ...blobKey(sha).split("/"));
  const sizeOf = async (sha: string): Promise<number | undefined> => {
    assertSha256(sha);
    try {
      const s = await stat(fileOf(sha));
      return s.isFile() ? s.size : undefined;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw err;
    }
  };
  // A present blob is only taken as stored if its bytes still hash right: a damaged object is replaced, not kept.
  const holds = async (sha: string, size: number) => (await sizeOf(sha)) === size && (await hashFile(fileOf(sha), maxBytes)).sha256 === sha;

  return {
    location: base,
    maxBytes,
    async put(source: BlobSource, o = {}): Promise<PutResult> {
      const { sha256, size } = "file" in source ? await hashFile(source.file, maxBytes) : digestBytes(source.bytes, maxBytes);
      if (o.expectSha256 !== undefined && o.expectSha256 !== sha256) throw new BlobIntegrityError(o.expectSha256, sha256, "file" in source ? source.file : "the bytes to store");
      if (await holds(sha256, size)) return { sha256, size, created: false };
      const target = fileOf(sha256);
      // Checked again while copying: a file that changed since it was hashed is refused.
      const what = "file" in source ? source.file : "the bytes to store";
      await writeVerified("file" in source ? createReadStream(source.file) : streamOf(source.bytes), target, { sha256, maxBytes, what });
      return { sha256, size, created: true };
    },
    has: async (sha) => (await sizeOf(sha)) !== undefined,
    size: sizeOf,
    async readTo(sha, file) {
      const size = await sizeOf(sha);
      if (size === undefined) throw new BlobNotFoundError(sha, base);
      if (size > maxBytes) throw new BlobTooLargeError(size, maxBytes, `blob ${sha}`);
      return writeVerified(createReadStream(fileOf(sha)), file, { sha256: sha, maxBytes, what: `blob ${sha} in ${base}` });
    },
  };
}
