/**
 * A host's cache of blobs it read from the store: `<cacheDir>/sha256/<aa>/<hash>`. A cached copy
 * is used only after its bytes hash to its name (a truncated or damaged file is fetched again),
 * a download is verified before it takes the name (verified-file.ts), and concurrent fetches of
 * one blob into one cache in this process share a single download.
 */
import { lstat, stat } from "node:fs/promises";
import path from "node:path";
import { BlobTooLargeError, assertSha256, blobKey, type BlobStore } from "./blob-store";
import { hashFile } from "./verified-file";

/** The file a blob has in a cache, whether or not it is there yet. */
export const cachePathOf = (cacheDir: string, sha256: string): string => path.join(path.resolve(cacheDir), ...blobKey(sha256).split("/"));

// Per process by nature: the downloads under way, keyed by destination file.
const inFlight = new Map<string, Promise<string>>();

/** A local file holding the blob, checked; fetched from the store when the cache lacks a good copy. */
export async function fetchToCache(store: BlobStore, sha256: string, cacheDir: string): Promise<string> {
  assertSha256(sha256);
  const file = cachePathOf(cacheDir, sha256);
  let p = inFlight.get(file);
  if (!p) {
    p = fetchOnce(store, sha256, file).finally(() => inFlight.delete(file));
    inFlight.set(file, p);
  }
  return p;
}

async function fetchOnce(store: BlobStore, sha256: string, file: string): Promise<string> {
  if (await holdsBlob(file, sha256, store.maxBytes)) return file;
  // A damaged copy is replaced by the rename that gives the verified download its name.
  await store.readTo(sha256, file);
  return file;
}

/** True when `file` is a regular file whose bytes hash to `sha256` (within `maxBytes`). */
export async function holdsBlob(file: string, sha256: string, maxBytes: number, opts: { followLinks?: boolean } = {}): Promise<boolean> {
  try {
    // In a cache a link is not a copy, whatever it points at.
    const s = await (opts.followLinks ? stat(file) : lstat(file));
    if (!s.isFile() || s.size > maxBytes) return false;
    return (await hashFile(file, maxBytes)).sha256 === sha256;
  } catch (err) {
    if (["ENOENT", "ENOTDIR"].includes((err as NodeJS.ErrnoException).code ?? "") || err instanceof BlobTooLargeError) return false;
    throw err;
  }
}
