/**
 * Hosted mode's storage hand-off: what one host received (a ZIP or a folder bundle, the
 * benchmark folder) is scored by a worker on another host that has none of those paths, from
 * S3-compatible storage (test/helpers/fake-s3-server.ts) through its own cache. "Another host"
 * is the `agentboard worker` command in its own process, with its own cache folder, after the
 * original paths were deleted or renamed away; its verdicts are compared with a run scored from
 * the originals. On each engine.
 */
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db/client";
import { benchmarkVersions, jobs, scoringRuns, submissions } from "@/db/schema";
import { blobKey } from "@/lib/storage/blob-store";
import { cachePathOf } from "@/lib/storage/cache";
import { storageFromUrl } from "@/lib/storage/from-url";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { folderSha256 } from "@/lib/submissions/bundle-storage";
import { ingestBundle } from "@/lib/submissions/ingest";
import { createScoringDeps } from "@/lib/submissions/scoring-deps";
import type { HostedStorage } from "@/lib/submissions/storage-settings";
import { runWorker } from "@/lib/submissions/worker";
import { ENGINES, freshDatabase, type TestDatabase } from "../helpers/engines";
import { startFakeS3Server, type FakeS3Server } from "../helpers/fake-s3-server";
import { GOOD_BUNDLE, MINI_BENCHMARK, tickingClock } from "../helpers/mini-fixtures";
import { runCli } from "../helpers/run-cli";
import { zipFolder } from "../helpers/zip-writer";

const LIMIT = 64 * 1024 * 1024;
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

let s3: FakeS3Server;
let work: string;
beforeAll(async () => {
  s3 = await startFakeS3Server();
  work = mkdtempSync(path.join(tmpdir(), "agentboard-hosted-storage-"));
});
afterAll(async () => {
  await s3.close();
  rmSync(work, { recursive: true, force: true });
});

let seq = 0;
const fresh = (name: string) => {
  const d = path.join(work, `${name}-${++seq}`);
  mkdirSync(d, { recursive: true });
  return d;
};

/** A host's view of the shared bucket: its own client, its own cache. */
const s3Storage = (prefix: string, cacheDir: string, endpoint = s3.endpoint): HostedStorage => ({
  store: storageFromUrl(`s3://${s3.bucket}/${prefix}`, { maxBytes: LIMIT, s3: { endpoint, forcePathStyle: true, credentials: s3.credentials } }),
  cacheDir,
});

/** The same settings as a worker process reads them. */
const s3Env = (prefix: string, cacheDir: string) => ({
  AGENTBOARD_STORAGE_URL: `s3://${s3.bucket}/${prefix}`,
  AGENTBOARD_S3_ENDPOINT: s3.endpoint,
  AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId,
  AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
  AGENTBOARD_CACHE_DIR: cacheDir,
});

/** The good bundle as a ZIP, with its agent renamed so each ZIP is a submission of its own. */
function goodZip(dir: string, agent: string): { file: string; sha256: string } {
  const bytes = zipFolder(GOOD_BUNDLE, (name, text) => (name.endsWith("metadata.json") ? JSON.stringify({ ...JSON.parse(text), agent_name: agent }) : text));
  const file = path.join(dir, `${agent}.zip`);
  writeFileSync(file, bytes);
  return { file, sha256: sha(bytes) };
}

function goodFolder(dir: string, agent: string): string {
  const folder = path.join(dir, agent);
  cpSync(GOOD_BUNDLE, folder, { recursive: true });
  const meta = path.join(folder, "output/metadata.json");
  writeFileSync(meta, JSON.stringify({ ...JSON.parse(readFileSync(meta, "utf8")), agent_name: agent }));
  return folder;
}

async function runOf(db: Db, submissionId: number) {
  const [sub] = await db.select().from(submissions).where(eq(submissions.id, submissionId)).limit(1);
  const [run] = await db.select().from(scoringRuns).where(eq(scoringRuns.submissionId, submissionId)).limit(1);
  const [job] = await db.select().from(jobs).where(eq(jobs.runId, run!.id)).limit(1);
  return { sub: sub!, run: run!, job: job! };
}

const digestOf = (run: { manifest: unknown }) => (run.manifest as { verdicts: { digest: string } }).verdicts.digest;

describe.each(ENGINES)("hosted storage (%s)", (engine) => {
  const now = tickingClock();
  const opened: TestDatabase[] = [];
  const database = async () => {
    const t = await freshDatabase(engine);
    opened.push(t);
    return t;
  };
  afterEach(async () => {
    for (const t of opened.splice(0)) await t.close();
  });

  async function scoreInProcess(db: Db, storage?: HostedStorage, log?: (l: string) => void) {
    const deps = createScoringDeps(db, { now, ...(storage ? { storage } : {}) });
    try {
      return await runWorker(db, deps, { untilIdle: true, ...(log ? { log } : {}) });
    } finally {
      await deps.close();
    }
  }

  it("scores on a second machine what the first received, with the same verdicts", async () => {
    const a = fresh("machine-a");
    const bench = path.join(a, "benchmark");
    cpSync(MINI_BENCHMARK, bench, { recursive: true });
    // A derived cache in the benchmark folder is not the benchmark: it is not stored.
    mkdirSync(path.join(bench, ".agentboard-cache"), { recursive: true });
    writeFileSync(path.join(bench, ".agentboard-cache/index.bin"), "derived");
    const zip = goodZip(a, "zip-agent");
    const folder = goodFolder(a, "folder-agent");

    // The reference: scored from the original paths, no storage anywhere.
    const ref = await database();
    const refVersion = (await registerBenchmark(ref.db, MINI_BENCHMARK, { isDefault: true, now: now() })).versionId;
    const refZip = await ingestBundle(ref.db, { versionId: refVersion, bundlePath: zip.file, source: "local", sourceRef: "zip", actor: "cli" }, now);
    const refFolder = await ingestBundle(ref.db, { versionId: refVersion, bundlePath: folder, source: "local", sourceRef: "folder", actor: "cli" }, now);
    expect(await scoreInProcess(ref.db)).toBe(2);
    const expected = { zip: await runOf(ref.db, refZip.submissionId), folder: await runOf(ref.db, refFolder.submissionId) };
    expect(expected.zip.run.status).toBe("completed");
    expect(expected.folder.run.status).toBe("completed");

    // Machine A receives both bundles and registers the benchmark, storing them in the bucket.
    const prefix = `two-machines-${engine}-${seq}`;
    const t = await database();
    const storageA = s3Storage(prefix, path.join(a, "cache"));
    const versionId = (await registerBenchmark(t.db, bench, { isDefault: true, now: now(), storage: storageA })).versionId;
    const inZip = await ingestBundle(t.db, { versionId, bundlePath: zip.file, source: "local", sourceRef: "zip", actor: "cli", storage: storageA }, now);
    const inFolder = await ingestBundle(t.db, { versionId, bundlePath: folder, source: "local", sourceRef: "folder", actor: "cli", storage: storageA }, now);
    expect(inZip).toMatchObject({ created: true, state: "queued" });
    expect(inFolder).toMatchObject({ created: true, state: "queued" });

    const zipRow = (await runOf(t.db, inZip.submissionId)).sub;
    const folderRow = (await runOf(t.db, inFolder.submissionId)).sub;
    // The ZIP is stored whole under the sha256 the submission records; the folder file by file, its manifest hashing to that sha256.
    expect(zipRow.bundleSha256).toBe(zip.sha256);
    expect(zipRow.bundleFiles).toBeNull();
    expect(s3.objectKeys()).toContain(`${prefix}/${blobKey(zip.sha256)}`);
    expect(Object.keys(folderRow.bundleFiles ?? {}).sort()).toEqual(["output/capability_2_dashboard_apis/harbor.json", "output/capability_4_multiturn/harbor.json", "output/metadata.json"]);
    expect(folderSha256(folderRow.bundleFiles!)).toBe(folderRow.bundleSha256);
    for (const blob of Object.values(folderRow.bundleFiles!)) expect(s3.objectKeys()).toContain(`${prefix}/${blobKey(blob)}`);
    const [version] = await t.db.select().from(benchmarkVersions).limit(1);
    expect(Object.keys(version!.files ?? {})).toContain("benchmark.yaml");
    expect(Object.keys(version!.files ?? {}).some((rel) => rel.startsWith(".agentboard-cache"))).toBe(false);

    // Nothing of machine A's is left where machine B could read it.
    rmSync(zip.file);
    rmSync(folder, { recursive: true });
    renameSync(bench, `${bench}.away`);

    const cacheB = fresh("machine-b-cache");
    const worker = await runCli(["worker", "--until-idle"], { ...t.env, ...s3Env(prefix, cacheB) });
    expect(worker.code, worker.stderr).toBe(0);

    const got = { zip: await runOf(t.db, inZip.submissionId), folder: await runOf(t.db, inFolder.submissionId) };
    expect(got.zip.run.status, String(got.zip.run.error)).toBe("completed");
    expect(got.folder.run.status, String(got.folder.run.error)).toBe("completed");
    expect(digestOf(got.zip.run)).toBe(digestOf(expected.zip.run));
    expect(digestOf(got.folder.run)).toBe(digestOf(expected.folder.run));
    expect(got.zip.run.overallScore).toBe(expected.zip.run.overallScore);
    // B read both bundles and the benchmark from the bucket: blobs and laid-out trees in its own cache.
    expect(existsSync(cachePathOf(cacheB, zip.sha256))).toBe(true);
    expect(readdirSync(path.join(cacheB, "trees"))).toHaveLength(2);
  }, 120_000);

  it("fetches again a cached copy that was damaged", async () => {
    const a = fresh("damaged");
    const prefix = `damaged-${engine}-${seq}`;
    const t = await database();
    const storage = s3Storage(prefix, path.join(a, "cache"));
    const versionId = (await registerBenchmark(t.db, MINI_BENCHMARK, { isDefault: true, now: now(), storage })).versionId;
    const zip = goodZip(a, "damaged-agent");
    const { submissionId } = await ingestBundle(t.db, { versionId, bundlePath: zip.file, source: "local", sourceRef: "zip", actor: "cli", storage }, now);
    rmSync(zip.file);
    // The worker's cache holds a truncated copy under the bundle's name.
    const cached = cachePathOf(storage.cacheDir, zip.sha256);
    mkdirSync(path.dirname(cached), { recursive: true });
    writeFileSync(cached, readFileSync(path.join(GOOD_BUNDLE, "output/metadata.json")));
    const gets = () => s3.requests.filter((r) => r.method === "GET" && r.key === `${prefix}/${blobKey(zip.sha256)}`).length;
    expect(gets()).toBe(0);

    expect(await scoreInProcess(t.db, storage)).toBe(1);
    expect((await runOf(t.db, submissionId)).run.status).toBe("completed");
    expect(gets()).toBe(1);
    expect(sha(readFileSync(cached))).toBe(zip.sha256);
  });

  it("fails a job whose bundle is missing from the storage, with a reason that names no path or bucket, and goes on", async () => {
    const a = fresh("missing");
    const prefix = `missing-${engine}-${seq}`;
    const t = await database();
    const storage = s3Storage(prefix, path.join(a, "cache"));
    const versionId = (await registerBenchmark(t.db, MINI_BENCHMARK, { isDefault: true, now: now(), storage })).versionId;
    const ingest = (bundlePath: string) => ingestBundle(t.db, { versionId, bundlePath, source: "local", sourceRef: "x", actor: "cli", storage }, now);
    const lostZip = goodZip(a, "lost-zip");
    const lostFolder = goodFolder(a, "lost-folder");
    const kept = goodZip(a, "kept-zip");
    const first = await ingest(lostZip.file);
    const second = await ingest(lostFolder);
    const third = await ingest(kept.file);
    const folderFiles = (await runOf(t.db, second.submissionId)).sub.bundleFiles!;
    s3.deleteObject(`${prefix}/${blobKey(lostZip.sha256)}`);
    s3.deleteObject(`${prefix}/${blobKey(folderFiles["output/metadata.json"]!)}`);
    for (const p of [lostZip.file, lostFolder, kept.file]) rmSync(p, { recursive: true });

    const log: string[] = [];
    expect(await scoreInProcess(t.db, storage, (l) => log.push(l))).toBe(3);
    const zipRun = await runOf(t.db, first.submissionId);
    const folderRun = await runOf(t.db, second.submissionId);
    expect(zipRun.run.status).toBe("failed");
    expect(zipRun.run.error).toBe(`bundle unavailable: sha256 ${lostZip.sha256} is neither on this host nor in the storage`);
    expect(zipRun.job).toMatchObject({ state: "failed", lastError: zipRun.run.error });
    expect(zipRun.sub.state).toBe("error");
    expect(folderRun.run.status).toBe("failed");
    expect(folderRun.run.error).toBe(`bundle unavailable: a file (sha256 ${folderFiles["output/metadata.json"]}) is missing from the storage`);
    for (const reason of [zipRun.run.error, folderRun.run.error]) {
      for (const secret of [s3.bucket, prefix, s3.endpoint, work, s3.credentials.accessKeyId]) expect(reason).not.toContain(secret);
    }
    expect((await runOf(t.db, third.submissionId)).run.status).toBe("completed");
  });

  it("leaves a job to its lease when the storage cannot be reached, without failing it", async () => {
    const a = fresh("unreachable");
    const prefix = `unreachable-${engine}-${seq}`;
    const t = await database();
    const storage = s3Storage(prefix, path.join(a, "cache"));
    const versionId = (await registerBenchmark(t.db, MINI_BENCHMARK, { isDefault: true, now: now(), storage })).versionId;
    const zip = goodZip(a, "unreachable-agent");
    const { submissionId } = await ingestBundle(t.db, { versionId, bundlePath: zip.file, source: "local", sourceRef: "zip", actor: "cli", storage }, now);
    rmSync(zip.file);

    // The worker's storage points at a port nobody listens on (the fake server's, closed).
    const gone = await startFakeS3Server();
    const endpoint = gone.endpoint;
    await gone.close();
    const log: string[] = [];
    expect(await scoreInProcess(t.db, s3Storage(prefix, path.join(a, "cache-b"), endpoint), (l) => log.push(l))).toBe(1);
    const { run, job, sub } = await runOf(t.db, submissionId);
    expect(log.some((l) => l.endsWith(": deferred"))).toBe(true);
    expect(job.state).toBe("running");
    expect(job.lastError).toMatch(/^bundle unavailable for now: object storage request failed: GET … [0-9a-f]{64}: .*; retried when the lease runs out$/);
    expect(run.status).toBe("running");
    expect(sub.state).toBe("scoring");

    // The storage is back: once the lease runs out, a worker scores it.
    const deps = createScoringDeps(t.db, { now, storage });
    expect(await runWorker(t.db, deps, { untilIdle: true, staleMs: 0 })).toBe(1);
    await deps.close();
    expect((await runOf(t.db, submissionId)).run.status).toBe("completed");
  });
});

describe("worker settings from the environment", () => {
  it("reads the lease timing, and refuses a heartbeat no faster than the lease goes stale", async () => {
    const { leaseTimingOrFail } = await import("@/scripts/commands/queue");
    expect(leaseTimingOrFail({})).toEqual({ staleMs: 120_000, heartbeatMs: 30_000 });
    expect(leaseTimingOrFail({ AGENTBOARD_WORKER_STALE_MS: "4000", AGENTBOARD_HEARTBEAT_MS: "500" })).toEqual({ staleMs: 4000, heartbeatMs: 500 });
    for (const env of [{ AGENTBOARD_WORKER_STALE_MS: "0" }, { AGENTBOARD_HEARTBEAT_MS: "1.5" }, { AGENTBOARD_WORKER_STALE_MS: "soon" }, { AGENTBOARD_WORKER_STALE_MS: "500", AGENTBOARD_HEARTBEAT_MS: "500" }]) {
      expect(() => leaseTimingOrFail(env), JSON.stringify(env)).toThrow(expect.objectContaining({ name: "CliError", exitCode: 2 }));
    }
  });

  it("builds the storage and cache, and refuses a wrong storage setting as a usage error", async () => {
    const { storageOrFail } = await import("@/scripts/commands/load");
    const local = storageOrFail({ AGENTBOARD_CACHE_DIR: "/srv/agentboard/cache" });
    expect(local.store.location).toBe(path.resolve(".agentboard/storage"));
    expect(local.cacheDir).toBe("/srv/agentboard/cache");
    expect(storageOrFail({}).cacheDir).toBe(path.resolve(".agentboard/cache"));
    expect(storageOrFail({ AGENTBOARD_STORAGE_URL: "s3://bucket/p", AWS_ACCESS_KEY_ID: "a", AWS_SECRET_ACCESS_KEY: "b" }).store.location).toBe("s3://bucket/p");
    for (const env of [{ AGENTBOARD_STORAGE_URL: "ftp://x/y" }, { AGENTBOARD_STORAGE_URL: "s3://bucket/p", AWS_ACCESS_KEY_ID: "a" }, { AGENTBOARD_STORAGE_MAX_BYTES: "-1" }]) {
      expect(() => storageOrFail(env), JSON.stringify(env)).toThrow(expect.objectContaining({ name: "CliError", exitCode: 2 }));
    }
  });
});
