/**
 * Reads a webhook request's body without letting the sender hold memory or a request open:
 * the signature header is checked for shape before a byte is read, the body is streamed
 * under a byte cap, a deadline and a minimum rate, and the HMAC is computed as the bytes
 * arrive, so an oversized, stalled or unsigned body is dropped early and never buffered whole.
 * Web streams only: no Next, no environment.
 *
 * Why a rate as well as a deadline: a sender that sends all but the last bytes and stalls (a
 * wrong signature shows only at the end) would hold its reading slot for the whole deadline.
 * The rate is measured per window, not on average since the start: a body sent nearly whole
 * at once and then stalled is "fast" on average for minutes.
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
  /** After `graceMs`, every `windowMs` must bring `bytesPerSecond × windowMs / 1000` bytes or more, until the body ends. */
  minRate?: MinimumRate;
}

export interface MinimumRate {
  /** 0: no minimum. */
  bytesPerSecond: number;
  graceMs: number;
  windowMs: number;
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
    /** Why the read was cut short (a 408), once it was. */
    let cut: string | null = null;
    const cutOff = (reason: string) => {
      cut ??= reason;
      void reader.cancel().catch(() => {});
    };
    const timer = setTimeout(() => cutOff(`the body did not arrive within ${options.timeoutMs} ms`), options.timeoutMs);
    const rate = slowSenderCheck(options.minRate, () => size, cutOff);
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (cut) return { ok: false, status: 408, reason: cut };
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
      return cut ? { ok: false, status: 408, reason: cut } : { ok: false, status: 400, reason: "the body could not be read" };
    } finally {
      clearTimeout(timer);
      if (rate) clearInterval(rate);
    }
  }
  if (!signatureMatches(signature.digest, hmac.digest())) return { ok: false, status: 401, reason: "signature does not match the body" };
  return { ok: true, bytes: Buffer.concat(chunks, size) };
}

/**
 * Checks, at the end of each window past the grace, that the window brought enough bytes;
 * calls `cutOff` when it did not. Null (nothing to clear) without a minimum.
 */
function slowSenderCheck(minRate: MinimumRate | undefined, received: () => number, cutOff: (reason: string) => void): ReturnType<typeof setInterval> | null {
  if (!minRate || minRate.bytesPerSecond <= 0) return null;
  const { windowMs } = minRate;
  const needed = (minRate.bytesPerSecond * windowMs) / 1000;
  let windows = 0;
  let before = received();
  return setInterval(() => {
    const now = received();
    const brought = now - before;
    before = now;
    // Only windows that began after the grace count: the first bytes may take a moment.
    if (windows++ * windowMs < minRate.graceMs) return;
    if (brought < needed) cutOff(`the body arrived slower than ${minRate.bytesPerSecond} bytes/s (${brought} bytes in ${windowMs} ms)`);
  }, windowMs);
}
