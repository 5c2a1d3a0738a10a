/**
 * Checks GitHub's `X-Hub-Signature-256` header: `sha256=` followed by the hex HMAC-SHA256 of
 * the raw request body under the webhook secret. The body must be the bytes as received (a
 * re-serialised JSON body would not match). The comparison is constant-time so the signature
 * cannot be guessed byte by byte from response timings.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export type SignatureCheck = { valid: true } | { valid: false; reason: string };

const HEADER = /^sha256=([0-9a-f]{64})$/i;

export function verifyWebhookSignature(
  secret: string,
  rawBody: string | Uint8Array,
  header: string | readonly string[] | null | undefined,
): SignatureCheck {
  if (!secret) return { valid: false, reason: "no webhook secret is configured" };
  if (header === null || header === undefined || header === "") return { valid: false, reason: "missing X-Hub-Signature-256 header" };
  if (typeof header !== "string") return { valid: false, reason: "more than one X-Hub-Signature-256 header" };
  const match = HEADER.exec(header.trim());
  if (!match) return { valid: false, reason: "malformed X-Hub-Signature-256 header: expected sha256= and 64 hex digits" };
  const given = Buffer.from(match[1]!, "hex");
  const expected = createHmac("sha256", secret).update(rawBody).digest();
  // Both are 32 bytes here (the pattern fixes the length), as timingSafeEqual requires.
  return timingSafeEqual(given, expected) ? { valid: true } : { valid: false, reason: "signature does not match the body" };
}

/** The header value GitHub would send for this body: for tests and local tooling. */
export function signWebhookBody(secret: string, rawBody: string | Uint8Array): string {
  return `sha256=${createHmac("sha256", secret).update(rawBody).digest("hex")}`;
}
