import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { signWebhookBody, verifyWebhookSignature } from "../../../lib/github/webhook-signature";

// GitHub's documented example ("Validating webhook deliveries").
const SECRET = "It's a Secret to Everybody";
const BODY = "Hello, World!";
const SIGNATURE = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";

describe("verifyWebhookSignature", () => {
  it("accepts GitHub's documented example", () => {
    expect(verifyWebhookSignature(SECRET, BODY, SIGNATURE)).toEqual({ valid: true });
  });

  it("accepts the raw body as bytes", () => {
    expect(verifyWebhookSignature(SECRET, Buffer.from(BODY), SIGNATURE)).toEqual({ valid: true });
  });

  it("signs as GitHub does", () => {
    expect(signWebhookBody(SECRET, BODY)).toBe(SIGNATURE);
    const payload = JSON.stringify({ action: "opened", issue: { number: 1, body: "<script>x</script>" } });
    const independent = `sha256=${createHmac("sha256", "s3cret").update(payload).digest("hex")}`;
    expect(signWebhookBody("s3cret", payload)).toBe(independent);
    expect(verifyWebhookSignature("s3cret", payload, independent)).toEqual({ valid: true });
  });

  it("rejects a body changed by one character", () => {
    expect(verifyWebhookSignature(SECRET, "Hello, World?", SIGNATURE)).toEqual({ valid: false, reason: "signature does not match the body" });
  });

  it("rejects the right body under another secret", () => {
    expect(verifyWebhookSignature("another secret", BODY, SIGNATURE)).toEqual({ valid: false, reason: "signature does not match the body" });
  });

  it("rejects a signature with one digit changed", () => {
    const wrong = SIGNATURE.slice(0, -1) + (SIGNATURE.endsWith("7") ? "8" : "7");
    expect(verifyWebhookSignature(SECRET, BODY, wrong).valid).toBe(false);
  });

  it.each([
    [undefined, "missing X-Hub-Signature-256 header"],
    [null, "missing X-Hub-Signature-256 header"],
    ["", "missing X-Hub-Signature-256 header"],
  ])("rejects a missing header (%s)", (header, reason) => {
    expect(verifyWebhookSignature(SECRET, BODY, header)).toEqual({ valid: false, reason });
  });

  it.each([
    ["sha1=" + "0".repeat(40)],
    ["757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"],
    ["sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e1"],
    ["sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e1700"],
    ["sha256=zz7107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"],
    ["sha256="],
  ])("rejects a malformed header %s", (header) => {
    expect(verifyWebhookSignature(SECRET, BODY, header)).toEqual({
      valid: false,
      reason: "malformed X-Hub-Signature-256 header: expected sha256= and 64 hex digits",
    });
  });

  it("rejects a repeated header", () => {
    expect(verifyWebhookSignature(SECRET, BODY, [SIGNATURE, SIGNATURE])).toEqual({ valid: false, reason: "more than one X-Hub-Signature-256 header" });
  });

  it("rejects everything when no secret is configured", () => {
    expect(verifyWebhookSignature("", BODY, signWebhookBody("", BODY))).toEqual({ valid: false, reason: "no webhook secret is configured" });
  });
});
