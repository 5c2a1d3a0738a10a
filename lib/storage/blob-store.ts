/**
 * The storage port: immutable blobs addressed by the sha256 of their bytes. Bundles and
 * benchmark files go through it so a worker on another host can read what the web host received.
 * Two implementations: a local folder (local-store.ts, the default) and S3-compatible object
 * storage (s3-store.ts). Whatever a store returns is checked against the hash before anyone
 * uses it, so a store is trusted for availability, never for integrity.
 */
export interface BlobSourceFile {
  file: string;
}
export interface BlobSourceBytes {
  bytes: Uint8Array;
}
/** What `put` stores: a local file (streamed, never read whole into memory) or bytes in hand. */
export type BlobSource = BlobSourceFile | BlobSourceBytes;

export interface PutResult {
  sha256: string;
  size: number;
  /** False when the store already held the blob (put is idempotent). */
  created: boolean;
}

export interface BlobStore {
  /** Where the blobs live, for messages: a folder or `s3://bucket/prefix`; never a secret. */
  readonly location: string;
  /** Objects larger than this are refused both ways (put and read). */
  readonly maxBytes: number;
  /**
   * Stores the source under its sha256. With `expectSha256`, bytes that hash otherwise are
   * refused (BlobIntegrityError) and nothing is stored.
   */
  put(source: BlobSource, opts?: { expectSha256?: string }): Promise<PutResult>;
  has(sha256: string): Promise<boolean>;
  /** The stored size in bytes, or undefined when the blob is absent. */
  size(sha256: string): Promise<number | undefined>;
  /**
   * Copies the blob to `file` (written aside and renamed, so `file` is never half-written),
   * checking its sha256 on the way: a store holding other bytes under that name is an error
   * (BlobIntegrityError) and `file` is not created. Absent: BlobNotFoundError.
   */
  readTo(sha256: string, file: string): Promise<{ size: number }>;
}

const SHA256 = /^[0-9a-f]{64}$/;
export const isSha256 = (s: unknown): s is string => typeof s === "string" && SHA256.test(s);

/** Refuses anything that is not a lowercase hex sha256 before it becomes part of a path or key. */
export function assertSha256(s: string): void {
  if (!isSha256(s)) throw new TypeError(`not a sha256 (64 lowercase hex digits): ${JSON.stringify(String(s).slice(0, 80))}`);
}

/** `sha256/<first two hex digits>/<hash>`: the layout of the local folder, the S3 prefix and caches. */
export const blobKey = (sha256: string): string => {
  assertSha256(sha256);
  return `sha256/${sha256.slice(0, 2)}/${sha256}`;
};

export class BlobNotFoundError extends Error {
  override readonly name = "BlobNotFoundError";
  constructor(readonly sha256: string, location: string) {
    super(`blob sha256 ${sha256} is not in the storage (${location})`);
  }
}

export class BlobIntegrityError extends Error {
  override readonly name = "BlobIntegrityError";
  constructor(readonly expected: string, readonly actual: string, where: string) {
    super(`sha256 mismatch for ${where}: expected ${expected}, got ${actual}`);
  }
}

export class BlobTooLargeError extends Error {
  override readonly name = "BlobTooLargeError";
  constructor(readonly size: number, readonly maxBytes: number, what: string) {
    super(`${what} is ${size} bytes or more, above the storage limit of ${maxBytes} bytes`);
  }
}
