/**
 * A small S3-compatible server on 127.0.0.1 for the storage tests (an edge fake, ours): path-style
 * `/<bucket>/<key>` PutObject, GetObject and HeadObject, the subset @aws-sdk/client-s3 sends for
 * lib/storage/s3-store.ts. It checks what a real server would refuse, so a client bug shows:
 * - a SigV4 Authorization header naming the configured access key (the signature itself is not
 *   recomputed: the SDK's signer is not what is under test);
 * - `x-amz-content-sha256`: a hex value must match the body (XAmzContentSHA256Mismatch), as S3
 *   checks it; the store sends the blob's sha256 there, so an upload is verified end to end;
 * - `aws-chunked` bodies (the SDK's default streaming-checksum encoding) are refused with 501:
 *   the store configures the client with requestChecksumCalculation "WHEN_REQUIRED", and this
 *   makes a regression to the default visible instead of storing the chunk framing as content.
 * Tests reach inside: `setObject` plants wrong bytes under a hash's key, `hang` makes a key's
 * requests never answer, and `requests` counts what was asked.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeS3Request {
  method: string;
  bucket: string;
  key: string;
  /** The `x-amz-content-sha256` header as sent (a hex hash, UNSIGNED-PAYLOAD, or "" when absent). */
  payloadSha256: string;
}

export interface FakeS3Server {
  /** `http://127.0.0.1:<port>`: the client's endpoint (path-style). */
  readonly endpoint: string;
  readonly bucket: string;
  readonly credentials: { accessKeyId: string; secretAccessKey: string };
  readonly requests: readonly FakeS3Request[];
  /** Requests refused, with the reason, so a test can show why an upload failed. */
  readonly refusals: readonly string[];
  objectKeys(): string[];
  getObject(key: string): Buffer | undefined;
  /** Stores bytes under a key as they are (no hash check): a store holding the wrong content. */
  setObject(key: string, bytes: Buffer): void;
  deleteObject(key: string): void;
  /** Requests for this key are accepted and never answered (until close). */
  hang(key: string): void;
  close(): Promise<void>;
}

const xml = (code: string, message: string) => `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`;

export async function startFakeS3Server(opts: { bucket?: string; accessKeyId?: string; secretAccessKey?: string } = {}): Promise<FakeS3Server> {
  const bucket = opts.bucket ?? "agentboard-test";
  const credentials = { accessKeyId: opts.accessKeyId ?? "AKIDFAKES3TEST", secretAccessKey: opts.secretAccessKey ?? "fake-secret-for-tests" };
  const objects = new Map<string, Buffer>();
  const hanging = new Set<string>();
  const requests: FakeS3Request[] = [];
  const refusals: string[] = [];

  const refuse = (res: ServerResponse, status: number, code: string, message: string, head = false) => {
    refusals.push(`${status} ${code}: ${message}`);
    res.writeHead(status, { "content-type": "application/xml" });
    res.end(head ? undefined : xml(code, message));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://fake-s3");
    const [, b = "", ...rest] = url.pathname.split("/");
    const key = rest.map((part) => decodeURIComponent(part)).join("/");
    const method = req.method ?? "GET";
    requests.push({ method, bucket: b, key, payloadSha256: String(req.headers["x-amz-content-sha256"] ?? "") });
    const head = method === "HEAD";
    if (hanging.has(key)) return; // never answered

    const auth = req.headers.authorization ?? "";
    if (!auth.startsWith("AWS4-HMAC-SHA256 ") || !auth.includes(`Credential=${credentials.accessKeyId}/`)) return refuse(res, 403, "InvalidAccessKeyId", "unsigned request or unknown access key", head);
    if (b !== bucket) return refuse(res, 404, "NoSuchBucket", `no bucket ${b}`, head);
    if (url.searchParams.has("list-type") || key === "") return refuse(res, 501, "NotImplemented", "only object requests are served", head);

    if (method === "PUT") {
      if (String(req.headers["content-encoding"] ?? "").includes("aws-chunked") || req.headers["x-amz-decoded-content-length"] !== undefined) {
        req.resume();
        return refuse(res, 501, "NotImplemented", "aws-chunked uploads are not served: configure requestChecksumCalculation WHEN_REQUIRED");
      }
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = Buffer.concat(chunks);
      const declared = String(req.headers["x-amz-content-sha256"] ?? "");
      const actual = createHash("sha256").update(body).digest("hex");
      if (/^[0-9a-f]{64}$/.test(declared) && declared !== actual) return refuse(res, 400, "XAmzContentSHA256Mismatch", `declared ${declared}, body ${actual}`);
      objects.set(key, body);
      res.writeHead(200, { etag: `"${createHash("md5").update(body).digest("hex")}"`, "content-length": "0" });
      return res.end();
    }
    if (method === "GET" || head) {
      const body = objects.get(key);
      if (!body) return refuse(res, 404, "NoSuchKey", "The specified key does not exist.", head);
      res.writeHead(200, {
        "content-type": "application/octet-stream",
        "content-length": String(body.length),
        etag: `"${createHash("md5").update(body).digest("hex")}"`,
        "last-modified": new Date(0).toUTCString(),
      });
      return res.end(head ? undefined : body);
    }
    return refuse(res, 405, "MethodNotAllowed", `${method} is not served`);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) refuse(res, 500, "InternalError", err instanceof Error ? err.message : String(err));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    credentials,
    requests,
    refusals,
    objectKeys: () => [...objects.keys()].sort(),
    getObject: (key) => objects.get(key),
    setObject: (key, bytes) => void objects.set(key, bytes),
    deleteObject: (key) => void objects.delete(key),
    hang: (key) => void hanging.add(key),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
