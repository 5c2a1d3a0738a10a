/**
 * Checks GitHub's `X-Hub-Signature-256` header: `sha256=` followed by the hex HMAC-SHA256 of
 * the raw request body under the webhook secret. The body must be the bytes as received (a
 * re-serialised JSON body would not match). The comparison is constant-time so the signature
 * cannot be guessed byte by byte from response timings.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export type SignatureCheck = { valid: true } | { valid: false; reason: string };

const HEADER = /^sha256=([0-9a-f]{64})$/i;

/** The 32 signature bytes of a well-formed header, or why it is not one: checkable before any body is read. */
export function parseSignatureHeader(header: string | readonly string[] | null | undefined): { ok: true; digest: Buffer } | { ok: false; reason: string } {
  if (header === null || header === undefined || header === "") return { ok: false, reason: "missing X-Hub-Signature-256 header" };
  if (typeof header !== "string") return { ok: false, reason: "more than one X-Hub-Signature-256 header" };
  const match = HEADER.exec(header.trim());
  if (!match) return { ok: false, reason: "malformed X-Hub-Signature-256 header: expected sha256= and 64 hex digits" };
  return { ok: true, digest: Buffer.from(match[1]!, "hex") };
}

/** Compares a header's digest with the HMAC computed over the body, in constant time. */
export function signatureMatches(given: Buffer, expected: Buffer): boolean {
  // Both are 32 bytes (the header pattern fixes the length), as timingSafeEqual requires.
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function verifyWebhookSignature(
  secret: string,
  rawBody: string | Uint8Array,
  header: string | readonly string[] | null | undefined,
): SignatureCheck {
  if (!secret) return { valid: false, reason: "no webhook secret is configured" };
  const parsed = parseSignatureHeader(header);
  if (!parsed.ok) return { valid: false, reason: parsed.reason };
  const expected = createHmac("sha256", secret).update(rawBody).digest();
  return signatureMatches(parsed.digest, expected) ? { valid: true } : { valid: false, reason: "signature does not match the body" };
}

/** The header value GitHub would send for this body: for tests and local tooling. */
export function signWebhookBody(secret: string, rawBody: string | Uint8Array): string {
  return `sha256=${createHmac("sha256", secret).update(rawBody).digest("hex")}`;
}
