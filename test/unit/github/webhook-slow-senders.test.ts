/**
 * The webhook's bounds on slow senders, as units: a body that stops arriving is cut off once
 * the grace is over (readSignedBody's minimum rate, measured per window, so a body sent nearly
 * whole and then stalled is caught), one address holds at most its share of the reading slots
 * (reading-slots.ts), and the settings behind both are validated with a message naming them.
 * Windows here are a few milliseconds; no test asserts how long anything took.
 */
import { describe, expect, it } from "vitest";
import { createReadingSlots } from "@/app/api/github/webhook/reading-slots";
import { readSignedBody } from "@/lib/github/webhook-body";
import { signWebhookBody } from "@/lib/github/webhook-signature";
import { githubSettingsFromEnv, SettingsError, WEBHOOK_LIMITS, WORKER_GITHUB_PASS } from "@/lib/submissions/github-settings";

const SECRET = "s3cret";
const enc = (s: string) => new TextEncoder().encode(s);

/** Sends `first` at once, then nothing more: the stream never ends. */
const stallsAfter = (first: string) => new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(enc(first)), pull: () => new Promise(() => {}) });

/** Sends `chunks`, each after `everyMs`, then ends. */
function trickle(chunks: string[], everyMs: number): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    async pull(c) {
      if (i >= chunks.length) return c.close();
      await new Promise((r) => setTimeout(r, everyMs));
      c.enqueue(enc(chunks[i++]!));
    },
  });
}

describe("readSignedBody's minimum rate", () => {
  const body = JSON.stringify({ pad: "x".repeat(3_000) });
  const opts = (minRate: Parameters<typeof readSignedBody>[1]["minRate"]) => ({ secret: SECRET, signature: signWebhookBody(SECRET, body), maxBytes: 10_000, timeoutMs: 60_000, minRate });

  it("cuts off a body sent nearly whole and then stalled, once the grace is over, with 408", async () => {
    const out = await readSignedBody(stallsAfter(body.slice(0, -1)), opts({ bytesPerSecond: 1024, graceMs: 20, windowMs: 10 }));
    expect(out).toMatchObject({ ok: false, status: 408, reason: expect.stringMatching(/^the body arrived slower than 1024 bytes\/s \(0 bytes in 10 ms\)$/) });
  });

  it("reads a body that keeps arriving fast enough, window after window", async () => {
    // 300 bytes every 10 ms, over several 30 ms windows: each needs 31 bytes (1,024 bytes/s) and gets about 900.
    const chunks = body.match(/.{1,300}/gs)!;
    const out = await readSignedBody(trickle(chunks, 10), opts({ bytesPerSecond: 1024, graceMs: 0, windowMs: 30 }));
    expect(out.ok && out.bytes.toString()).toBe(body);
  });

  it("with no minimum (0), only the deadline cuts a stalled body off", async () => {
    const out = await readSignedBody(stallsAfter("{"), { ...opts({ bytesPerSecond: 0, graceMs: 0, windowMs: 5 }), timeoutMs: 50 });
    expect(out).toMatchObject({ ok: false, status: 408, reason: "the body did not arrive within 50 ms" });
  });
});

describe("reading slots", () => {
  const limits = { total: 8, perAddress: 2 };

  it("gives one address its share and no more (429), and others the rest, up to the total (503)", () => {
    const slots = createReadingSlots();
    const attacker = Array.from({ length: 8 }, () => slots.take("203.0.113.7", limits));
    expect(attacker.map((g) => (g.ok ? 200 : g.status))).toEqual([200, 200, 429, 429, 429, 429, 429, 429]);
    const others = Array.from({ length: 6 }, (_, i) => slots.take(`198.51.100.${i}`, limits));
    expect(others.every((g) => g.ok)).toBe(true);
    expect(slots.take("192.0.2.10", limits)).toMatchObject({ ok: false, status: 503 });
    expect(slots.held().total).toBe(8);
  });

  it("gives a slot back once, however often released, and forgets an address with none", () => {
    const slots = createReadingSlots();
    const a = slots.take("203.0.113.7", limits);
    const b = slots.take("203.0.113.7", limits);
    if (!a.ok || !b.ok) throw new Error("expected two slots");
    a.release();
    a.release();
    expect(slots.held()).toMatchObject({ total: 1 });
    expect(slots.held().byAddress.get("203.0.113.7")).toBe(1);
    b.release();
    expect(slots.held().total).toBe(0);
    expect(slots.held().byAddress.size).toBe(0);
  });

  it("counts only the total when the address is not known (no trusted proxy)", () => {
    const slots = createReadingSlots();
    const grants = Array.from({ length: 9 }, () => slots.take(null, limits));
    expect(grants.filter((g) => g.ok)).toHaveLength(8);
    expect(grants[8]).toMatchObject({ ok: false, status: 503 });
  });
});

describe("the settings behind them", () => {
  it("have defaults", () => {
    const s = githubSettingsFromEnv({});
    expect(s).toMatchObject({
      webhookMaxPerAddress: WEBHOOK_LIMITS.maxPerAddress,
      webhookMinBytesPerSecond: 1024,
      webhookRateGraceMs: 2_000,
      reconcileMs: 600_000,
      reconcileMaxPages: WORKER_GITHUB_PASS.reconcileMaxPages,
    });
  });

  it("take whole numbers in range from the environment", () => {
    const s = githubSettingsFromEnv({ GITHUB_WEBHOOK_MAX_CONCURRENT: "16", GITHUB_WEBHOOK_MAX_PER_ADDRESS: "4", GITHUB_WEBHOOK_MIN_BYTES_PER_SEC: "0", GITHUB_WEBHOOK_RATE_GRACE_MS: "500", GITHUB_RECONCILE_MS: "0", GITHUB_RECONCILE_MAX_PAGES: "3" });
    expect(s).toMatchObject({ webhookMaxPerAddress: 4, webhookMinBytesPerSecond: 0, webhookRateGraceMs: 500, reconcileMs: 0, reconcileMaxPages: 3 });
    // The default share never exceeds the slots.
    expect(githubSettingsFromEnv({ GITHUB_WEBHOOK_MAX_CONCURRENT: "1" }).webhookMaxPerAddress).toBe(1);
  });

  it("refuse anything else, naming the variable and the value", () => {
    const bad: Record<string, string>[] = [
      { GITHUB_WEBHOOK_MAX_PER_ADDRESS: "0" },
      { GITHUB_WEBHOOK_MAX_PER_ADDRESS: "9" },
      { GITHUB_WEBHOOK_MIN_BYTES_PER_SEC: "-1" },
      { GITHUB_WEBHOOK_MIN_BYTES_PER_SEC: "1.5" },
      { GITHUB_WEBHOOK_RATE_GRACE_MS: "soon" },
      { GITHUB_RECONCILE_MS: "10m" },
      { GITHUB_RECONCILE_MAX_PAGES: "0" },
    ];
    for (const env of bad) {
      const [[name, value]] = Object.entries(env) as [[string, string]];
      expect(() => githubSettingsFromEnv(env), name).toThrow(SettingsError);
      expect(() => githubSettingsFromEnv(env), name).toThrow(new RegExp(`^${name} must be a whole number .*got "${value.replace(".", "\\.")}"$`));
    }
  });
});
