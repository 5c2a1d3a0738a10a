/**
 * Ingestion of a local bundle (a path or a ZIP): received → validating → invalid | queued.
 * The same bundle for the same benchmark version is one submission, however often it is
 * ingested.
 */
import { createHash } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { auditLog, submissions } from "../../db/schema";
import { validateBundle } from "../validate/validate-bundle";
import { benchmarkOfVersion } from "./benchmarks";
import { queueRun, type RunSpec } from "./runs";
import { transition } from "./transitions";

export interface SubmissionMetadata {
  agentName?: string;
  models?: string[];
  maintainer?: string;
  description?: string;
  links?: Record<string, string>;
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
  const sha = report.bundle.sha256 ?? `unreadable:${createHash("sha256").update(input.bundlePath).digest("hex")}`;
  const existing = db
    .select()
    .from(submissions)
    .where(and(eq(submissions.benchmarkVersionId, input.versionId), eq(submissions.bundleSha256, sha)))
    .get();
  if (existing) return { submissionId: existing.id, created: false, state: existing.state };

  const fromBundle = metadataFromBundle(submission?.metadata ?? null);
  const meta = { ...fromBundle, ...Object.fromEntries(Object.entries(input.metadata ?? {}).filter(([, v]) => v !== undefined)) } as SubmissionMetadata;
  const at = now();
  return db.transaction((tx) => {
    const row = tx
      .insert(submissions)
      .values({
        benchmarkVersionId: input.versionId,
        agentName: (meta.agentName ?? "").trim() || "unnamed agent",
        models: meta.models ?? [],
        maintainer: meta.maintainer ?? "",
        description: meta.description ?? "",
        links: meta.links ?? {},
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
    transition(tx, row.id, "validating", { actor: "validator", at });
    tx.update(submissions)
      .set({ validationReport: report as unknown as Record<string, unknown> })
      .where(eq(submissions.id, row.id))
      .run();
    if (!report.valid) {
      transition(tx, row.id, "invalid", { actor: "validator", at, reason: `${report.summary.errors} validation error(s)`, details: { codes: [...new Set(report.errors.map((e) => e.code))] } });
      return { submissionId: row.id, created: true, state: "invalid" };
    }
    const runId = queueRun(tx, row.id, benchmark, input.run ?? {}, at);
    transition(tx, row.id, "queued", { actor: "validator", at, reason: `${report.summary.dialogues} dialogues valid`, details: { runId } });
    return { submissionId: row.id, created: true, state: "queued" };
  });
}
