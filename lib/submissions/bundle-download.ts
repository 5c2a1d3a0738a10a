/**
 * The file a published entry's bundle is downloaded as (lib/queries/entry-bundle.ts says which
 * entries offer one): a ZIP bundle is its own bytes, checked against its sha256 (from this host's
 * path, else the store); a folder bundle is zipped once, after its files were checked against
 * the folder's sha256, and kept in the cache under that sha256 (`bundle-zips/<sha256>.zip`).
 * Nothing is served that does not hash to what the entry records.
 */
import { stat } from "node:fs/promises";
import path from "node:path";
import { zipToFile } from "../storage/folder-zip";
import { openBundle } from "../validate/bundle-source";
import type { EntryBundle } from "../queries/entry-bundle";
import { BundleLostError, localBundle } from "./bundle-storage";
import type { HostedStorage } from "./storage-settings";

export interface BundleDownload {
  file: string;
  /** `zip`: the file's sha256 is the entry's; `folder`: the unzipped folder's is. */
  kind: EntryBundle["kind"];
}

/** The file to send; BundleLostError (a public reason) when no bytes with the entry's sha256 are to be had. */
export async function bundleDownload(storage: HostedStorage, bundle: EntryBundle): Promise<BundleDownload> {
  const cached = path.join(storage.cacheDir, "bundle-zips", `${bundle.sha256}.zip`);
  // Written only from files that hashed to the folder's sha256: once there, it is the download.
  if (bundle.kind === "folder" && (await stat(cached).catch(() => null))?.isFile()) return { file: cached, kind: "folder" };
  const local = await localBundle(storage, { bundlePath: bundle.path, bundleSha256: bundle.sha256, bundleFiles: bundle.files, validationReport: { bundle: { kind: bundle.kind } } });
  if (bundle.kind === "zip") return { file: local, kind: "zip" };
  // A folder read from its path (received without a store) may have changed since: checked as validation hashes it.
  const opened = await openBundle(local);
  if (!opened.ok) throw new BundleLostError("its folder can no longer be read as it was received");
  try {
    if ((await opened.source.sha256()) !== bundle.sha256) throw new BundleLostError("its folder has changed since it was scored");
    return { file: await zipToFile(opened.source.files.map((f) => ({ path: f.path, absPath: f.absPath! })), cached), kind: "folder" };
  } finally {
    await opened.source.close();
  }
}
