/**
 * Ingestion of a local bundle (a path or a ZIP): received → validating → invalid | queued.
 * The same bundle for the same benchmark version is one submission, however often it is
 * ingested.
 */
import { createHash } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { auditLog, jobs, scoringRuns, submissions } from "../../db/schema";
import type { Benchmark } from "../benchmark/load-benchmark";
import { validationLimitsFromEnv } from "../validate/limit-settings";
import { validateBundle } from "../validate/validate-bundle";
import type { TreeManifest } from "../storage/tree";
import { benchmarkOfVersion } from "./benchmarks";
import { storeSubmissionBundle } from "./bundle-storage";
import { writeTx } from "./db-busy";
import { queueRun, type RunSpec } from "./runs";
import type { HostedStorage } from "./storage-settings";
import { transition, type Tx } from "./transitions";

export interface SubmissionMetadata {
  agentName?: string;
  models?: string[];
  maintainer?: string;
  description?: string;
  links?: Record<string, string>;
  /** Maintainers only: never shown publicly. */
  contact?: string;
  agentType?: string;
  notes?: string;
}

export interface IngestInput {
  versionId: number;
  bundlePath: string;
  source: "local" | "github" | "demo";
  sourceRef: string;
  actor: string;
  isDemo?: boolean;
  /** Overrides what the bundle's metadata.json says. */
  metadata?: SubmissionMetadata;
  run?: Partial<RunSpec>;
  /**
   * Where the bundle is kept by content for workers on other hosts (and where the version's
   * benchmark may be read from). Without it the bundle is only at `bundlePath`, as before.
   */
  storage?: HostedStorage;
}

export interface IngestOutcome {
  submissionId: number;
  created: boolean;
  state: string;
}

const str = (v: unknown) => (typeof v === "string" ? v : undefined);

/** Reads the VAKRA-style metadata file's fields (snake or camel case). */
export function metadataFromBundle(raw: Record<string, unknown> | null): SubmissionMetadata {
  if (!raw) return {};
  const models = raw.models ?? raw.model;
  const links: Record<string, string> = {};
  for (const k of ["url", "paper", "code", "homepage", "repository"]) if (typeof raw[k] === "string") links[k] = raw[k] as string;
  return {
    agentName: str(raw.agent_name) ?? str(raw.agentName) ?? str(raw.name),
    models: Array.isArray(models) ? models.map(String) : typeof models === "string" ? [models] : undefined,
    maintainer: str(raw.maintainer),
    description: str(raw.description),
    links,
  };
}

export async function ingestBundle(db: Db, input: IngestInput, now: () => Date): Promise<IngestOutcome> {
  const benchmark = await benchmarkOfVersion(db, input.versionId, input.storage);
  const { report, submission } = await validateBundle(input.bundlePath, benchmark, { limits: validationLimitsFromEnv(process.env) });
  const sha = bundleSha(report, input.bundlePath);
  const existing = await findByBundle(db, input.versionId, sha);
  if (existing) return { submissionId: existing.id, created: false, state: existing.state };
  // Stored before any transaction (an upload is slow work); a duplicate upload is a no-op.
  const bundleFiles = await storeValidated(input.storage, report, input.bundlePath);

  const meta = mergeMetadata(metadataFromBundle(submission?.metadata ?? null), input.metadata);
  const at = now();
  const created = await writeTx(db, async (tx) => {
    const [row] = await tx
      .insert(submissions)
      .values({
        benchmarkVersionId: input.versionId,
        ...metadataColumns(meta),
        source: input.source,
        sourceRef: input.sourceRef,
        bundlePath: input.bundlePath,
        bundleSha256: sha,
        bundleFiles,
        isDemo: input.isDemo ?? false,
        bundleReceivedAt: at,
        state: "received",
        createdAt: at,
        updatedAt: at,
      })
      // The same bundle ingested at once by another process: its row stands, this one is not made.
      .onConflictDoNothing()
      .returning({ id: submissions.id });
    if (!row) return undefined;
    await tx.insert(auditLog).values({ at, actor: input.actor, action: "state:received", submissionId: row.id, toState: "received", reason: `from ${input.source}: ${input.sourceRef}` });
    return { submissionId: row.id, created: true, state: await settleValidation(tx, row.id, report, benchmark, input.run ?? {}, at) };
  });
  if (created) return created;
  const other = (await findByBundle(db, input.versionId, sha))!;
  return { submissionId: other.id, created: false, state: other.state };
}

export interface RevisionInput {
  bundlePath: string;
  actor: string;
  metadata?: SubmissionMetadata;
  run?: Partial<RunSpec>;
  /** As IngestInput.storage. */
  storage?: HostedStorage;
}

export type RevisionOutcome =
  | { ok: true; revision: number; state: string; unchanged: boolean }
  | { ok: false; reason: string };

/**
 * A new bundle for an existing submission (the submitter edited the ZIP link): it is
 * validated and queued like a first one and needs a fresh approval; old runs are kept. A run
 * in progress is not interrupted: the caller retries the revision once it has finished.
 */
export async function reviseBundle(db: Db, submissionId: number, input: RevisionInput, now: () => Date): Promise<RevisionOutcome> {
  const [row] = await db.select().from(submissions).where(eq(submissions.id, submissionId)).limit(1);
  if (!row) return { ok: false, reason: `submission ${submissionId} does not exist` };
  if (row.state === "withdrawn") return { ok: false, reason: "the submission was withdrawn; open a new issue to submit again" };
  if (row.state === "scoring" || row.state === "received" || row.state === "validating") return { ok: false, reason: "busy" };
  const benchmark = await benchmarkOfVersion(db, row.benchmarkVersionId, input.storage);
  const { report, submission } = await validateBundle(input.bundlePath, benchmark, { limits: validationLimitsFromEnv(process.env) });
  const sha = bundleSha(report, input.bundlePath);
  const meta = mergeMetadata(metadataFromBundle(submission?.metadata ?? null), input.metadata);
  if (sha === row.bundleSha256) {
    // Same bytes: only the form's details may have changed.
    await writeTx(db, (tx) => tx.update(submissions).set({ ...metadataColumns(meta), updatedAt: now() }).where(eq(submissions.id, submissionId)));
    return { ok: true, revision: row.revision, state: row.state, unchanged: true };
  }
  const other = await findByBundle(db, row.benchmarkVersionId, sha);
  if (other) return { ok: false, reason: `this bundle was already submitted as submission ${other.id}` };
  const bundleFiles = await storeValidated(input.storage, report, input.bundlePath);
  const at = now();
  const revision = row.revision + 1;
  return writeTx(db, async (tx): Promise<RevisionOutcome> => {
    // A run still waiting for a worker belongs to the old bundle: it is dropped.
    for (const run of await tx.select({ id: scoringRuns.id }).from(scoringRuns).where(and(eq(scoringRuns.submissionId, submissionId), eq(scoringRuns.status, "queued")))) {
      await tx.update(scoringRuns).set({ status: "failed", error: `superseded by revision ${revision}`, finishedAt: at }).where(eq(scoringRuns.id, run.id));
      await tx.update(jobs).set({ state: "done", lastError: `superseded by revision ${revision}`, updatedAt: at }).where(and(eq(jobs.runId, run.id), eq(jobs.state, "queued")));
    }
    await tx
      .update(submissions)
      // New content: received now, so it comes after every entry already holding it (run-integrity.ts).
      .set({ ...metadataColumns(meta), bundlePath: input.bundlePath, bundleSha256: sha, bundleFiles, revision, bundleReceivedAt: at, updatedAt: at })
      .where(eq(submissions.id, submissionId));
    await tx.insert(auditLog).values({ at, actor: input.actor, action: "revision", submissionId, reason: `revision ${revision}`, details: { revision, sha256: sha } });
    return { ok: true, revision, state: await settleValidation(tx, submissionId, report, benchmark, input.run ?? {}, at), unchanged: false };
  });
}

type Report = Awaited<ReturnType<typeof validateBundle>>["report"];

function bundleSha(report: Report, bundlePath: string): string {
  return report.bundle.sha256 ?? `unreadable:${createHash("sha256").update(bundlePath).digest("hex")}`;
}

/**
 * Stores a bundle that will be scored, so any worker can read it back by content; returns a
 * folder's manifest (null for a ZIP, stored whole under its sha256, or without a store). An
 * invalid or unreadable bundle is never scored, so it is not stored.
 */
async function storeValidated(storage: HostedStorage | undefined, report: Report, bundlePath: string): Promise<TreeManifest | null> {
  if (!storage || !report.valid || report.bundle.sha256 === null || report.bundle.kind === "unknown") return null;
  return storeSubmissionBundle(storage.store, { path: bundlePath, kind: report.bundle.kind, sha256: report.bundle.sha256 });
}

async function findByBundle(db: Db, versionId: number, sha: string) {
  const [row] = await db
    .select()
    .from(submissions)
    .where(and(eq(submissions.benchmarkVersionId, versionId), eq(submissions.bundleSha256, sha)))
    .limit(1);
  return row;
}

/** What the caller says wins over the bundle's metadata.json, field by field. */
function mergeMetadata(fromBundle: SubmissionMetadata, given: SubmissionMetadata | undefined): SubmissionMetadata {
  return { ...fromBundle, ...Object.fromEntries(Object.entries(given ?? {}).filter(([, v]) => v !== undefined)) } as SubmissionMetadata;
}

function metadataColumns(meta: SubmissionMetadata) {
  return {
    agentName: (meta.agentName ?? "").trim() || "unnamed agent",
    models: meta.models ?? [],
    maintainer: meta.maintainer ?? "",
    description: meta.description ?? "",
    links: meta.links ?? {},
    contact: meta.contact ?? "",
    agentType: meta.agentType ?? "",
    notes: meta.notes ?? "",
  };
}

/** validating → invalid | queued (with a new run), with the report stored; returns the state. */
async function settleValidation(tx: Tx, submissionId: number, report: Report, benchmark: Benchmark, run: Partial<RunSpec>, at: Date): Promise<"invalid" | "queued"> {
  await transition(tx, submissionId, "validating", { actor: "validator", at });
  await tx
    .update(submissions)
    .set({ validationReport: report as unknown as Record<string, unknown> })
    .where(eq(submissions.id, submissionId));
  if (!report.valid) {
    await transition(tx, submissionId, "invalid", { actor: "validator", at, reason: `${report.summary.errors} validation error(s)`, details: { codes: [...new Set(report.errors.map((e) => e.code))] } });
    return "invalid";
  }
  const runId = await queueRun(tx, submissionId, benchmark, run, at);
  await transition(tx, submissionId, "queued", { actor: "validator", at, reason: `${report.summary.dialogues} dialogues valid`, details: { runId } });
  return "queued";
}
