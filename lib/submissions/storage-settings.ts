/**
 * Where a process keeps bundles and benchmark files by content (the storage port, lib/storage)
 * and where a worker lays out what it reads back: built once per process from an environment
 * the caller hands over (the scripts pass theirs; nothing here reads process state), then
 * passed down to ingest, benchmark registration and the worker. Settings and defaults:
 * - AGENTBOARD_STORAGE_URL and the S3 settings: lib/storage/env.ts; default the local folder
 *   `.agentboard/storage`.
 * - AGENTBOARD_CACHE_DIR: the worker's cache of blobs and laid-out trees; default `.agentboard/cache`.
 * - AGENTBOARD_STORAGE_MAX_BYTES: the largest object stored or read; default 1 GiB (above the
 *   largest bundle a download or validation accepts).
 */
import path from "node:path";
import type { BlobStore } from "../storage/blob-store";
import { storageFromEnv } from "../storage/env";

export interface HostedStorage {
  store: BlobStore;
  /** This host's cache: blobs under `sha256/`, laid-out trees under `trees/`. */
  cacheDir: string;
}

export const DEFAULT_STORAGE_DIR = ".agentboard/storage";
export const DEFAULT_CACHE_DIR = ".agentboard/cache";
export const DEFAULT_STORAGE_MAX_BYTES = 1024 ** 3;

type Env = Readonly<Record<string, string | undefined>>;

export class StorageSettingsError extends Error {
  override readonly name = "StorageSettingsError";
}

/** The process's storage and cache; a wrong setting throws StorageSettingsError naming it. */
export function hostedStorageFromEnv(env: Env): HostedStorage {
  const rawMax = env.AGENTBOARD_STORAGE_MAX_BYTES?.trim();
  const maxBytes = rawMax ? Number(rawMax) : DEFAULT_STORAGE_MAX_BYTES;
  if (!(Number.isSafeInteger(maxBytes) && maxBytes > 0)) throw new StorageSettingsError(`AGENTBOARD_STORAGE_MAX_BYTES must be a positive whole number of bytes, not ${JSON.stringify(rawMax)}`);
  let store: BlobStore;
  try {
    store = storageFromEnv(env, { defaultDir: DEFAULT_STORAGE_DIR, maxBytes });
  } catch (err) {
    throw new StorageSettingsError(err instanceof Error ? err.message : String(err));
  }
  return { store, cacheDir: path.resolve(env.AGENTBOARD_CACHE_DIR?.trim() || DEFAULT_CACHE_DIR) };
}
