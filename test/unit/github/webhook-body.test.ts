import { describe, expect, it } from "vitest";
import { readSignedBody } from "@/lib/github/webhook-body";
import { signWebhookBody } from "@/lib/github/webhook-signature";

const SECRET = "s3cret";

/** A body stream that counts how many chunks were pulled from it. */
function counted(chunks: string[]): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let i = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (i >= chunks.length) return c.close();
      c.enqueue(new TextEncoder().encode(chunks[i++]!));
    },
  });
  return { stream, pulled: () => i };
}

const opts = (signature: string | null, over: Partial<Parameters<typeof readSignedBody>[1]> = {}) => ({ secret: SECRET, signature, maxBytes: 1_000, timeoutMs: 60_000, ...over });

describe("readSignedBody", () => {
  it("returns the bytes of a correctly signed body", async () => {
    const body = '{"a":1}';
    const out = await readSignedBody(counted(['{"a"', ":1}"]).stream, opts(signWebhookBody(SECRET, body)));
    expect(out).toMatchObject({ ok: true });
    expect(out.ok && out.bytes.toString()).toBe(body);
  });

  it("refuses a missing or malformed signature before reading a byte", async () => {
    for (const sig of [null, "sha1=abc", "sha256=zz"]) {
      const body = counted(["x".repeat(500)]);
      expect(await readSignedBody(body.stream, opts(sig))).toMatchObject({ ok: false, status: 401 });
      expect(body.pulled()).toBe(0);
    }
  });

  it("refuses a declared or streamed body over the cap without reading it all", async () => {
    const declared = counted(["x"]);
    expect(await readSignedBody(declared.stream, opts(signWebhookBody(SECRET, "x"), { contentLength: "5000" }))).toMatchObject({ ok: false, status: 413 });
    expect(declared.pulled()).toBe(0);
    const streamed = counted(Array.from({ length: 100 }, () => "y".repeat(100)));
    expect(await readSignedBody(streamed.stream, opts(signWebhookBody(SECRET, "y")))).toMatchObject({ ok: false, status: 413 });
    expect(streamed.pulled()).toBeLessThan(100);
  });

  it("refuses a body whose signature does not match", async () => {
    expect(await readSignedBody(counted(["{}"]).stream, opts(signWebhookBody("other", "{}")))).toMatchObject({ ok: false, status: 401, reason: expect.stringContaining("does not match") });
  });

  it("gives up on a body that stops arriving", async () => {
    const stalled = new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(new Uint8Array([123])), pull: () => new Promise(() => {}) });
    expect(await readSignedBody(stalled, opts(signWebhookBody(SECRET, "{}"), { timeoutMs: 20 }))).toMatchObject({ ok: false, status: 408 });
  });
});
