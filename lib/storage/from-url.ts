/**
 * One storage location string for every process: `s3://bucket/prefix` for object storage, else a
 * local folder (a path or a `file://` URL). The S3 connection settings are not in the URL (they
 * hold secrets and differ per host): the caller passes them, read from the environment by env.ts.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { BlobStore } from "./blob-store";
import { localBlobStore } from "./local-store";
import { s3BlobStore, type S3Credentials, type S3Timeouts } from "./s3-store";

export interface StorageOptions {
  /** Objects above this many bytes are refused (the bundle limit, say). */
  maxBytes: number;
  s3?: {
    endpoint?: string;
    region?: string;
    forcePathStyle?: boolean;
    credentials?: S3Credentials | "sdk-default-chain";
    timeouts?: Partial<S3Timeouts>;
  };
}

export function storageFromUrl(url: string, options: StorageOptions): BlobStore {
  const text = url.trim();
  if (text === "") throw new Error("storage location is empty");
  if (/^s3:\/\//i.test(text)) {
    const u = new URL(text);
    const bucket = u.hostname;
    // S3 bucket names: 3–63 of lowercase letters, digits, dots and hyphens.
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw new Error(`storage URL ${text}: "${bucket}" is not a valid bucket name`);
    if (u.search || u.hash || u.username || u.password || u.port) throw new Error(`storage URL ${text}: only s3://bucket/prefix is understood (put the endpoint and keys in the S3 settings)`);
    const s3 = options.s3 ?? {};
    if (!s3.credentials) throw new Error(`storage URL ${text}: no S3 credentials (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)`);
    return s3BlobStore({
      bucket,
      prefix: decodeURIComponent(u.pathname),
      maxBytes: options.maxBytes,
      credentials: s3.credentials,
      ...(s3.endpoint ? { endpoint: s3.endpoint } : {}),
      ...(s3.region ? { region: s3.region } : {}),
      ...(s3.forcePathStyle !== undefined ? { forcePathStyle: s3.forcePathStyle } : {}),
      ...(s3.timeouts ? { timeouts: s3.timeouts } : {}),
    });
  }
  if (/^file:/i.test(text)) return localBlobStore(fileURLToPath(text), { maxBytes: options.maxBytes });
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) throw new Error(`storage URL ${text}: unknown scheme (use s3://bucket/prefix or a local folder)`);
  return localBlobStore(path.resolve(text), { maxBytes: options.maxBytes });
}
