/**
 * S3-compatible object storage (AWS S3, MinIO, R2, Ceph…) through @aws-sdk/client-s3, objects at
 * `<prefix>/sha256/<aa>/<hash>`. Settings come in as an options object (the caller reads the
 * environment: env.ts); this module reads no process state.
 *
 * Integrity: every upload carries the blob's sha256 as `x-amz-content-sha256` (the SigV4 payload
 * hash), which the server checks against the body, so a file that changes during upload is
 * refused by the server; every download is hashed on the way to disk (verified-file.ts).
 * The SDK's default CRC checksums are switched to "WHEN_REQUIRED": they would add aws-chunked
 * framing that some S3-compatible servers reject, and the sha256 already covers both directions.
 *
 * Bounds: objects above `maxBytes` are refused before upload and before download (by the
 * declared length, then by counting); each request has a connect time-out, an idle-socket
 * time-out and an overall deadline that also covers streaming the body to disk.
 *
 * The SDK is loaded on first use (it takes ~0.4 s to import), so a process on the local folder
 * never pays for it.
 */
import { createReadStream } from "node:fs";
import type { Readable } from "node:stream";
import type { S3Client } from "@aws-sdk/client-s3";
import { BlobIntegrityError, BlobNotFoundError, BlobTooLargeError, assertSha256, blobKey, type BlobStore, type PutResult } from "./blob-store";
import { digestBytes, hashFile, writeVerified } from "./verified-file";

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface S3Timeouts {
  /** Opening a connection (default 10 s). */
  connectMs: number;
  /** A socket with no bytes moving (default 60 s). */
  idleMs: number;
  /** One whole operation, body included (default 15 min: a large bundle on a slow link). */
  operationMs: number;
}

export const DEFAULT_S3_TIMEOUTS: S3Timeouts = { connectMs: 10_000, idleMs: 60_000, operationMs: 15 * 60_000 };

export interface S3StoreOptions {
  bucket: string;
  /** Key prefix without leading or trailing slash; "" for the bucket's root. */
  prefix: string;
  maxBytes: number;
  /** e.g. `http://127.0.0.1:9000` for MinIO; absent for AWS S3. */
  endpoint?: string;
  /** Default "us-east-1" (what most S3-compatible servers accept). */
  region?: string;
  /** `<endpoint>/<bucket>/<key>` rather than `<bucket>.<endpoint>/<key>`; MinIO and tests need it. */
  forcePathStyle?: boolean;
  /**
   * Static keys, or "sdk-default-chain" to let the SDK find them (instance role, AWS_PROFILE…),
   * which only the caller may choose, since that chain reads the environment and may query the
   * instance metadata endpoint.
   */
  credentials: S3Credentials | "sdk-default-chain";
  timeouts?: Partial<S3Timeouts>;
  /** Attempts per request, retries included (SDK default 3). */
  maxAttempts?: number;
}

export function s3BlobStore(opts: S3StoreOptions): BlobStore {
  const { bucket, maxBytes } = opts;
  const prefix = opts.prefix.replace(/^\/+|\/+$/g, "");
  const timeouts = { ...DEFAULT_S3_TIMEOUTS, ...opts.timeouts };
  const location = `s3://${bucket}/${prefix}`;
  let connection: Promise<{ sdk: typeof import("@aws-sdk/client-s3"); client: S3Client }> | undefined;
  const connect = () =>
    (connection ??= import("@aws-sdk/client-s3").then((sdk) => ({
      sdk,
      client: new sdk.S3Client({
        region: opts.region ?? "us-east-1",
        ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
        forcePathStyle: opts.forcePathStyle ?? false,
        ...(opts.credentials === "sdk-default-chain" ? {} : { credentials: opts.credentials }),
        requestChecksumCalculation: "WHEN_REQUIRED",
        responseChecksumValidation: "WHEN_REQUIRED",
        maxAttempts: opts.maxAttempts ?? 3,
        requestHandler: { connectionTimeout: timeouts.connectMs, socketTimeout: timeouts.idleMs },
      }),
    })));
  const keyOf = (sha: string) => (prefix ? `${prefix}/${blobKey(sha)}` : blobKey(sha));
  const deadline = () => AbortSignal.timeout(timeouts.operationMs);

  const sizeOf = async (sha: string): Promise<number | undefined> => {
    assertSha256(sha);
    const { sdk, client } = await connect();
    try {
      const head = await client.send(new sdk.HeadObjectCommand({ Bucket: bucket, Key: keyOf(sha) }), { abortSignal: deadline() });
      return head.ContentLength ?? 0;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw describe(err, `HEAD ${location} ${sha}`);
    }
  };

  return {
    location,
    maxBytes,
    async put(source, o = {}): Promise<PutResult> {
      const { sha256, size } = "file" in source ? await hashFile(source.file, maxBytes) : digestBytes(source.bytes, maxBytes);
      if (o.expectSha256 !== undefined && o.expectSha256 !== sha256) throw new BlobIntegrityError(o.expectSha256, sha256, "file" in source ? source.file : "the bytes to store");
      // Content-addressed: an object of the right size under the hash's key is this blob (every reader checks the hash anyway).
      if ((await sizeOf(sha256)) === size) return { sha256, size, created: false };
      const { sdk, client } = await connect();
      const command = new sdk.PutObjectCommand({
        Bucket: bucket,
        Key: keyOf(sha256),
        Body: "file" in source ? createReadStream(source.file) : source.bytes,
        ContentLength: size,
        ContentType: "application/octet-stream",
      });
      // The signer takes a payload hash already present instead of hashing the body itself, and the server checks the body against it.
      command.middlewareStack.add(
        (next) => async (args) => {
          const request = args.request as { headers?: Record<string, string> };
          if (request.headers) request.headers["x-amz-content-sha256"] = sha256;
          return next(args);
        },
        { step: "build", name: "agentboardPayloadSha256" },
      );
      try {
        await client.send(command, { abortSignal: deadline() });
      } catch (err) {
        throw describe(err, `PUT ${location} ${sha256}`);
      }
      return { sha256, size, created: true };
    },
    has: async (sha) => (await sizeOf(sha)) !== undefined,
    size: sizeOf,
    async readTo(sha, file) {
      assertSha256(sha);
      const { sdk, client } = await connect();
      const signal = deadline();
      let body: Readable;
      try {
        const got = await client.send(new sdk.GetObjectCommand({ Bucket: bucket, Key: keyOf(sha) }), { abortSignal: signal });
        body = got.Body as Readable;
        if ((got.ContentLength ?? 0) > maxBytes) {
          body.destroy();
          throw new BlobTooLargeError(got.ContentLength ?? 0, maxBytes, `blob ${sha}`);
        }
      } catch (err) {
        if (err instanceof BlobTooLargeError) throw err;
        if (isNotFound(err)) throw new BlobNotFoundError(sha, location);
        throw describe(err, `GET ${location} ${sha}`);
      }
      try {
        return await writeVerified(body, file, { sha256: sha, maxBytes, what: `blob ${sha} in ${location}`, signal });
      } catch (err) {
        throw signal.aborted ? describe(err, `GET ${location} ${sha}`) : err;
      }
    },
  };
}

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === "NotFound" || e?.name === "NoSuchKey" || e?.$metadata?.httpStatusCode === 404;
}

/** The SDK's errors say little ("UnknownError", a bare status); say which request to which store failed, and why. */
function describe(err: unknown, what: string): Error {
  const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const status = e?.$metadata?.httpStatusCode;
  const reason = e?.name === "AbortError" || e?.name === "TimeoutError" ? "timed out" : `${e?.name ?? "Error"}${status ? ` (HTTP ${status})` : ""}: ${e?.message ?? String(err)}`;
  return new Error(`object storage request failed: ${what}: ${reason}`, { cause: err });
}
