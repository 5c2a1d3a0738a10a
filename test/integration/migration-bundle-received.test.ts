/**
 * The migration that adds `submissions.bundle_received_at` (SQLite 0010, Postgres 0003) on rows
 * written before it, on each engine: a revised submission received its current bundle at its
 * latest revision, any other when it was made. The backfill statement of each migration file is
 * run against rows written without the column.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { exec } from "@/db/client";
import { auditLog, benchmarks, benchmarkVersions, submissions } from "@/db/schema";
import { ENGINES, useFreshDatabase } from "../helpers/engines";

const FILES = { sqlite: "migrations/0010_bundle_received_at.sql", postgres: "migrations-pg/0003_bundle_received_at.sql" };

describe.each(ENGINES)("bundle_received_at backfill (%s)", (engine) => {
  const t = useFreshDatabase(engine);
  const at = (minutes: number) => new Date(Date.UTC(2026, 10, 20) + minutes * 60_000);

  it("take the latest revision's time for a revised submission, the creation time for the others", async () => {
    const [b] = await t.db.insert(benchmarks).values({ slug: "b", title: "B", createdAt: at(0) }).returning();
    const [v] = await t.db.insert(benchmarkVersions).values({ benchmarkId: b!.id, version: "1", root: "/b", spec: {}, createdAt: at(0) }).returning();
    const sub = (name: string, created: number) =>
      t.db.insert(submissions).values({ benchmarkVersionId: v!.id, agentName: name, models: [], links: {}, source: "github", sourceRef: name, bundlePath: name, bundleSha256: name, state: "scored", createdAt: at(created), updatedAt: at(created) }).returning();
    const [plain] = await sub("plain", 1);
    const [revised] = await sub("revised", 2);
    for (const [minutes, action] of [[5, "revision"], [9, "revision"], [12, "state:queued"]] as const) await t.db.insert(auditLog).values({ at: at(minutes), actor: "github:x", action, submissionId: revised!.id });

    const [, backfill] = readFileSync(path.resolve(import.meta.dirname, "../../db", FILES[engine]), "utf8").split("--> statement-breakpoint");
    await exec(t.db, sql.raw(backfill!));
    const rows = await t.db.select({ name: submissions.agentName, receivedAt: submissions.bundleReceivedAt }).from(submissions).orderBy(submissions.id);
    expect(rows).toEqual([
      { name: "plain", receivedAt: at(1) },
      { name: "revised", receivedAt: at(9) },
    ]);
  });
});
