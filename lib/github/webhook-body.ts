/**
 * Reads a webhook request's body without letting the sender hold memory or a request open:
 * the signature header is checked for shape before a byte is read, the body is streamed
 * under a byte cap and a deadline, and the HMAC is computed as the bytes arrive, so an
 * oversized, stalled or unsigned body is dropped early and never buffered whole. Web streams
 * only: no Next, no environment.
 */
import { createHmac } from "node:crypto";
import { parseSignatureHeader, signatureMatches } from "./webhook-signature";

export interface SignedBodyOptions {
  secret: string;
  /** The X-Hub-Signature-256 header. */
  signature: string | null;
  /** The Content-Length header, if any: a body declared larger is refused unread. */
  contentLength?: string | null;
  maxBytes: number;
  /** The whole body must arrive within this. */
  timeoutMs: number;
}

export type SignedBody = { ok: true; bytes: Buffer } | { ok: false; status: 400 | 401 | 408 | 413; reason: string };

export async function readSignedBody(body: ReadableStream<Uint8Array> | null, options: SignedBodyOptions): Promise<SignedBody> {
  const signature = parseSignatureHeader(options.signature);
  if (!signature.ok) {
    await body?.cancel().catch(() => {});
    return { ok: false, status: 401, reason: signature.reason };
  }
  const declared = options.contentLength ? Number(options.contentLength) : NaN;
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    await body?.cancel().catch(() => {});
    return { ok: false, status: 413, reason: `payload larger than ${options.maxBytes} bytes` };
  }
  const hmac = createHmac("sha256", options.secret);
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (body) {
    const reader = body.getReader();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      void reader.cancel().catch(() => {});
    }, options.timeoutMs);
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (timedOut) return { ok: false, status: 408, reason: `the body did not arrive within ${options.timeoutMs} ms` };
        if (done) break;
        size += value.byteLength;
        if (size > options.maxBytes) {
          await reader.cancel().catch(() => {});
          return { ok: false, status: 413, reason: `payload larger than ${options.maxBytes} bytes` };
        }
        hmac.update(value);
        chunks.push(value);
      }
    } catch {
      return timedOut ? { ok: false, status: 408, reason: `the body did not arrive within ${options.timeoutMs} ms` } : { ok: false, status: 400, reason: "the body could not be read" };
    } finally {
      clearTimeout(timer);
    }
  }
  if (!signatureMatches(signature.digest, hmac.digest())) return { ok: false, status: 401, reason: "signature does not match the body" };
  return { ok: true, bytes: Buffer.concat(chunks, size) };
}
