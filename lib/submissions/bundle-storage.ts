/**
 * Submission bundles through the storage port, so a worker on another host scores exactly what
 * was received. At ingest a ZIP is stored whole under the sha256 the submission records; a
 * folder is stored file by file (putTree) and its manifest kept in `submissions.bundle_files`.
 * Before scoring, the worker resolves the submission to a local path with that content.
 */
import { createHash } from "node:crypto";
import { BlobIntegrityError, BlobNotFoundError, BlobTooLargeError } from "../storage/blob-store";
import { BundleUnavailableError, resolveBundle, storeBundle } from "../storage/bundle";
import { TreeError, materializeTree, putTree, type TreeManifest } from "../storage/tree";
import type { HostedStorage } from "./storage-settings";

export class BundleChangedError extends Error {
  override readonly name = "BundleChangedError";
}

/**
 * The folder bundle's sha256 from a manifest, as lib/validate/bundle-source.ts computes it from
 * the folder: `path\0sha256\n` lines in the order of a walk that lists each folder sorted by
 * name, which is the order of the paths compared segment by segment.
 */
export function folderSha256(manifest: TreeManifest): string {
  const bySegments = (a: string, b: string) => {
    const x = a.split("/");
    const y = b.split("/");
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
    return x.length - y.length;
  };
  const lines = Object.keys(manifest)
    .sort(bySegments)
    .map((rel) => `${rel}\0${manifest[rel]}\n`);
  return createHash("sha256").update(lines.join("")).digest("hex");
}

/**
 * Stores a validated bundle (idempotent). `sha256` is what validation computed and the
 * submission records: the stored content must hash to it, else the bundle changed between
 * validation and storing (BundleChangedError, nothing recorded). Returns the folder's manifest,
 * or null for a ZIP (stored whole under `sha256`).
 */
export async function storeSubmissionBundle(store: HostedStorage["store"], bundle: { path: string; kind: string; sha256: string }): Promise<TreeManifest | null> {
  if (bundle.kind === "zip") {
    try {
      await storeBundle(store, bundle.path, bundle.sha256);
    } catch (err) {
      if (err instanceof BlobIntegrityError) throw new BundleChangedError(`the bundle changed while it was being received (sha256 ${err.actual.slice(0, 12)}, validated ${bundle.sha256.slice(0, 12)}); submit it again`);
      throw err;
    }
    return null;
  }
  const { manifest } = await putTree(store, bundle.path);
  const stored = folderSha256(manifest);
  if (stored !== bundle.sha256) throw new BundleChangedError(`the bundle folder changed while it was being received (sha256 ${stored.slice(0, 12)}, validated ${bundle.sha256.slice(0, 12)}); submit it again`);
  return manifest;
}

/** A bundle the store cannot give back as recorded: the job fails (retrying cannot help). */
export class BundleLostError extends Error {
  override readonly name = "BundleLostError";
}

export interface StoredSubmission {
  bundlePath: string;
  bundleSha256: string;
  bundleFiles: TreeManifest | null;
  validationReport: Record<string, unknown> | null;
}

/**
 * A local path whose content is the submission's bundle: a folder laid out from its manifest, a
 * ZIP from this host's path when it still holds those bytes, else from the store. A submission
 * received without a store (no manifest, not a ZIP) is scored from its path, as before.
 * BundleLostError carries a public reason (no path, no storage location); any other error is
 * the storage failing for now (unreachable, timed out).
 */
export async function localBundle(storage: HostedStorage, sub: StoredSubmission): Promise<string> {
  try {
    if (sub.bundleFiles) return await materializeTree(storage.store, sub.bundleFiles, storage.cacheDir);
    const kind = (sub.validationReport?.bundle as { kind?: unknown } | undefined)?.kind;
    if (kind === "zip") return await resolveBundle(storage.store, { path: sub.bundlePath, sha256: sub.bundleSha256 }, storage.cacheDir);
    return sub.bundlePath;
  } catch (err) {
    const lost = lostReason(err);
    if (lost) throw new BundleLostError(lost, { cause: err });
    throw err;
  }
}

/** The public reason a storage error is permanent for this content, or undefined when it may pass. */
export function lostReason(err: unknown): string | undefined {
  if (err instanceof BundleUnavailableError) return `sha256 ${err.sha256} is neither on this host nor in the storage`;
  if (err instanceof BlobNotFoundError) return `a file (sha256 ${err.sha256}) is missing from the storage`;
  if (err instanceof BlobIntegrityError) return `the storage holds other bytes under sha256 ${err.expected} (got ${err.actual})`;
  if (err instanceof BlobTooLargeError) return `a stored file is larger than this host's storage limit (${err.maxBytes} bytes)`;
  if (err instanceof TreeError) return "its stored file list is unusable";
  return undefined;
}
