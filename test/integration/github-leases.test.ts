/**
 * Named leases (lib/submissions/named-leases.ts) and webhook-delivery claims on each engine: one
 * holder at a time, a lease taken over only once it expired, renewal and release only with
 * the holder's token, and a delivery claimed by a worker that died taken again once its claim
 * is stale. Lease clocks are injected here (no wall-clock waits).
 */
import path from "node:path";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { githubDeliveries, leases } from "@/db/schema";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { createGitHubIntake, processPendingDeliveries, recordDelivery } from "@/lib/submissions/github-intake";
import { githubSettingsFromEnv } from "@/lib/submissions/github-settings";
import { acquireLease, releaseLease, renewLease, withLease } from "@/lib/submissions/named-leases";
import { ENGINES, useFreshDatabase } from "../helpers/engines";

const mini = path.resolve(import.meta.dirname, "../../test/fixtures/mini-benchmark");
const at = (s: number) => () => new Date(Date.UTC(2026, 10, 25) + s * 1000);

describe.each(ENGINES)("leases on %s", (engine) => {
  const t = useFreshDatabase(engine);

  it("has one holder at a time, and is taken over only once expired", async () => {
    const a = await acquireLease(t.db, "intake:o/r", { holder: "a", ttlMs: 10_000, now: at(0) });
    expect(a).not.toBeNull();
    expect(await acquireLease(t.db, "intake:o/r", { holder: "b", ttlMs: 10_000, now: at(9) })).toBeNull();
    // Another name is another lease.
    expect(await acquireLease(t.db, "issue:o/r#1", { holder: "b", ttlMs: 10_000, now: at(9) })).not.toBeNull();
    expect(await renewLease(t.db, a!, { ttlMs: 10_000, now: at(9) })).toBe(true); // now until 19 s
    expect(await acquireLease(t.db, "intake:o/r", { holder: "b", ttlMs: 10_000, now: at(18) })).toBeNull();
    const b = await acquireLease(t.db, "intake:o/r", { holder: "b", ttlMs: 10_000, now: at(20) });
    expect(b).not.toBeNull();
    // The overtaken holder can neither renew nor release the new holder's lease.
    expect(await renewLease(t.db, a!, { now: at(21) })).toBe(false);
    await releaseLease(t.db, a!);
    expect(await t.db.select({ holder: leases.holder }).from(leases).where(eq(leases.name, "intake:o/r"))).toEqual([{ holder: "b" }]);
    await releaseLease(t.db, b!);
    expect(await acquireLease(t.db, "intake:o/r", { holder: "c", now: at(22) })).not.toBeNull();
  });

  it("runs work under a lease, not while another holds it, and gives it back", async () => {
    const inside = await withLease(t.db, "issue:o/r#2", async () => {
      const other = await withLease(t.db, "issue:o/r#2", async () => "ran");
      expect(other).toEqual({ held: false });
      return "done";
    });
    expect(inside).toEqual({ held: true, value: "done" });
    expect(await t.db.select().from(leases)).toEqual([]);
  });

  it("takes again a delivery whose worker died holding it, once the claim is stale", async () => {
    await registerBenchmark(t.db, mini, { isDefault: true, now: at(0)() });
    const settings = githubSettingsFromEnv({ GITHUB_TOKEN: "t", GITHUB_API_URL: "http://127.0.0.1:9", GITHUB_REPOSITORY: "bench-org/bench" });
    const ctx = await createGitHubIntake(t.db, settings, { now: at(1), leaseMs: 60_000, connect: { retry: false, throttle: false } });
    await recordDelivery(t.db, { id: "p-1", event: "ping", payload: { zen: "hi" } }, at(0)());
    // Claimed by a worker that is still alive: left alone.
    await t.db.update(githubDeliveries).set({ leaseToken: "someone-else", leasedAt: new Date() }).where(eq(githubDeliveries.deliveryId, "p-1"));
    expect(await processPendingDeliveries(ctx)).toBe(0);
    expect((await t.db.select().from(githubDeliveries))[0]).toMatchObject({ status: "pending", leaseToken: "someone-else" });
    // Its claim went stale (no renewal for longer than the lease): taken and done, once.
    await t.db.update(githubDeliveries).set({ leasedAt: new Date(Date.now() - 120_000) }).where(eq(githubDeliveries.deliveryId, "p-1"));
    expect(await processPendingDeliveries(ctx)).toBe(1);
    expect((await t.db.select().from(githubDeliveries))[0]).toMatchObject({ status: "ignored", attempts: 1, leaseToken: null });
    expect(await processPendingDeliveries(ctx)).toBe(0);
  });
});
