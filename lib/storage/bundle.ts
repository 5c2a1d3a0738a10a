/**
 * Bundles by content: ingest stores the bundle it validated, and a worker on any host resolves
 * `{ path, sha256 }` (the submission's `bundlePath` and `bundleSha256`) to a local file with
 * exactly those bytes: the original path when this host has it unchanged, else the cached copy
 * from the store.
 */
import { BlobNotFoundError, isSha256, type BlobStore } from "./blob-store";
import { fetchToCache, holdsBlob } from "./cache";

/**
 * Stores the bundle file (idempotent) and returns its sha256. With `expectSha256` (the hash the
 * validation report computed), a file that changed since it was validated is refused
 * (BlobIntegrityError), so the store holds exactly the bytes that were validated.
 */
export async function storeBundle(store: BlobStore, file: string, expectSha256?: string): Promise<string> {
  return (await store.put({ file }, expectSha256 === undefined ? {} : { expectSha256 })).sha256;
}

export class BundleUnavailableError extends Error {
  override readonly name = "BundleUnavailableError";
  constructor(readonly sha256: string, file: string, location: string) {
    super(`bundle sha256 ${sha256} is unavailable: not at ${file} with that content, and not in the storage (${location})`);
  }
}

export async function resolveBundle(store: BlobStore, bundle: { path: string; sha256: string }, cacheDir: string): Promise<string> {
  const sha = String(bundle.sha256);
  if (!isSha256(sha)) throw new Error(`bundle ${bundle.path} has no sha256 to resolve it by (${JSON.stringify(bundle.sha256.slice(0, 80))})`);
  // The submitter's own file (a local submission) may be a link; the cache's never is.
  if (await holdsBlob(bundle.path, sha, store.maxBytes, { followLinks: true })) return bundle.path;
  try {
    return await fetchToCache(store, sha, cacheDir);
  } catch (err) {
    if (err instanceof BlobNotFoundError) throw new BundleUnavailableError(sha, bundle.path, store.location);
    throw err;
  }
}
