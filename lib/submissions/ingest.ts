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
import { validateBundle } from "../validate/validate-bundle";
import { benchmarkOfVersion } from "./benchmarks";
import { queueRun, type RunSpec } from "./runs";
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
  const benchmark = await benchmarkOfVersion(db, input.versionId);
  const { report, submission } = await validateBundle(input.bundlePath, benchmark);
  const sha = bundleSha(report, input.bundlePath);
  const existing = findByBundle(db, input.versionId, sha);
  if (existing) return { submissionId: existing.id, created: false, state: existing.state };

  const meta = mergeMetadata(metadataFromBundle(submission?.metadata ?? null), input.metadata);
  const at = now();
  return db.transaction((tx) => {
    const row = tx
      .insert(submissions)
      .values({
        benchmarkVersionId: input.versionId,
        ...metadataColumns(meta),
        source: input.source,
        sourceRef: input.sourceRef,
        bundlePath: input.bundlePath,
        bundleSha256: sha,
        isDemo: input.isDemo ?? false,
        state: "received",
        createdAt: at,
        updatedAt: at,
      })
      .returning()
      .get();
    tx.insert(auditLog).values({ at, actor: input.actor, action: "state:received", submissionId: row.id, toState: "received", reason: `from ${input.source}: ${input.sourceRef}` }).run();
    return { submissionId: row.id, created: true, state: settleValidation(tx, row.id, report, benchmark, input.run ?? {}, at) };
  });
}

export interface RevisionInput {
  bundlePath: string;
  actor: string;
  metadata?: SubmissionMetadata;
  run?: Partial<RunSpec>;
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
  const row = db.select().from(submissions).where(eq(submissions.id, submissionId)).get();
  if (!row) return { ok: false, reason: `submission ${submissionId} does not exist` };
  if (row.state === "withdrawn") return { ok: false, reason: "the submission was withdrawn; open a new issue to submit again" };
  if (row.state === "scoring" || row.state === "received" || row.state === "validating") return { ok: false, reason: "busy" };
  const benchmark = await benchmarkOfVersion(db, row.benchmarkVersionId);
  const { report, submission } = await validateBundle(input.bundlePath, benchmark);
  const sha = bundleSha(report, input.bundlePath);
  const meta = mergeMetadata(metadataFromBundle(submission?.metadata ?? null), input.metadata);
  if (sha === row.bundleSha256) {
    // Same bytes: only the form's details may have changed.
    db.update(submissions).set({ ...metadataColumns(meta), updatedAt: now() }).where(eq(submissions.id, submissionId)).run();
    return { ok: true, revision: row.revision, state: row.state, unchanged: true };
  }
  const other = findByBundle(db, row.benchmarkVersionId, sha);
  if (other) return { ok: false, reason: `this bundle was already submitted as submission ${other.id}` };
  const at = now();
  const revision = row.revision + 1;
  return db.transaction((tx) => {
    // A run still waiting for a worker belongs to the old bundle: it is dropped.
    for (const run of tx.select().from(scoringRuns).where(and(eq(scoringRuns.submissionId, submissionId), eq(scoringRuns.status, "queued"))).all()) {
      tx.update(scoringRuns).set({ status: "failed", error: `superseded by revision ${revision}`, finishedAt: at }).where(eq(scoringRuns.id, run.id)).run();
      tx.update(jobs).set({ state: "done", lastError: `superseded by revision ${revision}`, updatedAt: at }).where(and(eq(jobs.runId, run.id), eq(jobs.state, "queued"))).run();
    }
    tx.update(submissions)
      .set({ ...metadataColumns(meta), bundlePath: input.bundlePath, bundleSha256: sha, revision, updatedAt: at })
      .where(eq(submissions.id, submissionId))
      .run();
    tx.insert(auditLog).values({ at, actor: input.actor, action: "revision", submissionId, reason: `revision ${revision}`, details: { revision, sha256: sha } }).run();
    return { ok: true, revision, state: settleValidation(tx, submissionId, report, benchmark, input.run ?? {}, at), unchanged: false };
  });
}

type Report = Awaited<ReturnType<typeof validateBundle>>["report"];

function bundleSha(report: Report, bundlePath: string): string {
  return report.bundle.sha256 ?? `unreadable:${createHash("sha256").update(bundlePath).digest("hex")}`;
}

function findByBundle(db: Db, versionId: number, sha: string) {
  return db
    .select()
    .from(submissions)
    .where(and(eq(submissions.benchmarkVersionId, versionId), eq(submissions.bundleSha256, sha)))
    .get();
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
function settleValidation(tx: Tx, submissionId: number, report: Report, benchmark: Benchmark, run: Partial<RunSpec>, at: Date): "invalid" | "queued" {
  transition(tx, submissionId, "validating", { actor: "validator", at });
  tx.update(submissions)
    .set({ validationReport: report as unknown as Record<string, unknown> })
    .where(eq(submissions.id, submissionId))
    .run();
  if (!report.valid) {
    transition(tx, submissionId, "invalid", { actor: "validator", at, reason: `${report.summary.errors} validation error(s)`, details: { codes: [...new Set(report.errors.map((e) => e.code))] } });
    return "invalid";
  }
  const runId = queueRun(tx, submissionId, benchmark, run, at);
  transition(tx, submissionId, "queued", { actor: "validator", at, reason: `${report.summary.dialogues} dialogues valid`, details: { runId } });
  return "queued";
}
