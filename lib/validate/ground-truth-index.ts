/**
 * What validation needs of the ground truth, and nothing more: each waterfall capability's
 * uuids per domain (in file order) with the turn id of each dialogue's last turn, the one
 * that is scored. Validating against it reports exactly what validating against the whole
 * ground truth does (validate-bundle.ts indexes a loaded benchmark the same way).
 *
 * `loadGroundTruthIndex` keeps the index in a cache file per benchmark version, so a
 * `validate` run does not parse tens of megabytes of ground truth each time. The cache is
 * keyed by the caller's salt (the code's build id), benchmark.yaml's sha256 and, per
 * ground-truth file, its size, mtime and sha256: when size and mtime match (and the file was
 * not written within RACY_MS of the cache, when a same-size edit could keep its mtime) the
 * file is taken as unchanged; otherwise its sha256 decides. A cache that is missing, corrupt,
 * or for other files is rebuilt from a full load, which also checks the ground truth.
 * Benchmarks with evaluator capabilities (small datasets with report files and metrics) are
 * always loaded whole.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { readerOf } from "./outputs-readers/registry";
import { dialogueIndex, dialogueIndexOf, indexCapability, type DialogueIndex, type IndexedCapability, type IndexedDialogue } from "../benchmark/capability-data";
import { sha256 } from "../formats/sha256";
import { loadBenchmark, loadBenchmarkSpec, type Benchmark } from "../benchmark/load-benchmark";
import type { BenchmarkSpec, CapabilitySpec } from "../benchmark/spec";

export interface GroundTruthIndex {
  root: string;
  spec: BenchmarkSpec;
  capabilities: IndexedCapability[];
}

const indexed = new WeakMap<Benchmark, GroundTruthIndex>();

/** The index of a loaded benchmark (computed once per benchmark object). */
export function indexBenchmark(benchmark: Benchmark): GroundTruthIndex {
  let index = indexed.get(benchmark);
  if (!index) indexed.set(benchmark, (index = { root: benchmark.root, spec: benchmark.spec, capabilities: benchmark.capabilities.map(indexCapability) }));
  return index;
}

/** Bumped whenever what the index holds, or how ground truth is read into it, changes. */
export const INDEX_SCHEMA = 1;
/** A file written this close to (or after) the cache may have changed within one mtime tick: hash it. */
const RACY_MS = 2_000;

export interface IndexCacheOptions {
  /** Folder of the cache files (created when missing); the CLI passes `<benchmark>/.agentboard-cache`. */
  dir: string;
  /** Identifies the code that reads the ground truth (the CLI's build id): another salt, another index. */
  salt: string;
}

export type IndexSource = "cache" | "cache-rehashed" | "loaded";

export interface LoadedIndex {
  index: GroundTruthIndex;
  /** "cache": every file matched by size and mtime; "cache-rehashed": some needed their sha256; "loaded": parsed whole. */
  source: IndexSource;
  /** Why the cache was not used or not written, when it was not (e.g. a read-only folder). */
  note?: string;
}

type FileStamp = [rel: string, size: number, mtimeMs: number, sha256: string];

interface CacheFile {
  schema: number;
  salt: string;
  slug: string;
  version: string;
  yamlSha256: string;
  writtenAt: number;
  files: FileStamp[];
  /** Per capability in benchmark.yaml order: [domain, uuids, lastTurnIds] per domain file. */
  capabilities: { id: string; domains: [string, string[], number[]][] }[];
}


/** The file name of a benchmark version's index (slug and version made safe for a file name). */
export function indexCacheFile(dir: string, spec: Pick<BenchmarkSpec, "slug" | "version">): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, "_");
  return path.join(dir, `gt-index-${safe(spec.slug)}-${safe(spec.version)}.json`);
}

/**
 * The ground-truth index of the benchmark at `root`: from the cache when it matches the files,
 * else from a full load (a broken benchmark throws BenchmarkError, as loadBenchmark does),
 * written back to the cache.
 */
export async function loadGroundTruthIndex(root: string, cache?: IndexCacheOptions): Promise<LoadedIndex> {
  const { spec, yamlText } = await loadBenchmarkSpec(root);
  const full = async (): Promise<LoadedIndex> => ({ index: indexBenchmark(await loadBenchmark(root, { spec })), source: "loaded" });
  if (!cache) return full();
  // Only capabilities read as records (the waterfall's dialogues) have an index to cache.
  if (spec.capabilities.some((c) => !readerOf(c.scorer).records)) return full();
  const listed = groundTruthFiles(root, spec.capabilities);
  // A capability folder that is missing or unreadable: the full load says precisely what is wrong.
  if (!listed) return full();
  const file = indexCacheFile(cache.dir, spec);
  const yamlSha256 = sha256(yamlText ?? "");
  const cached = readCache(file);
  if (cached && cached.schema === INDEX_SCHEMA && cached.salt === cache.salt && cached.yamlSha256 === yamlSha256 && sameNames(cached.files, listed)) {
    const index = indexFromCache(root, spec, cached);
    const unsure = cached.files.filter(([, size, mtimeMs], i) => size !== listed[i]!.size || mtimeMs !== listed[i]!.mtimeMs || mtimeMs >= cached.writtenAt - RACY_MS);
    if (index && unsure.length === 0) return { index, source: "cache" };
    const sizesMatch = cached.files.every(([, size], i) => size === listed[i]!.size);
    if (index && sizesMatch && sameContents(root, unsure)) {
      const note = await writeCache(file, { ...cached, writtenAt: Date.now(), files: listed.map((f, i) => [f.rel, f.size, f.mtimeMs, cached.files[i]![3]]) });
      return { index, source: "cache-rehashed", ...(note ? { note } : {}) };
    }
  }
  // Stamped before the load: a file edited meanwhile fails its check next time, and the index is rebuilt.
  const files: FileStamp[] = [];
  for (const f of listed) files.push([f.rel, f.size, f.mtimeMs, sha256(readFileSync(path.join(root, f.rel)))]);
  const writtenAt = Date.now();
  const index = indexBenchmark(await loadBenchmark(root, { spec }));
  const note = await writeCache(file, {
    schema: INDEX_SCHEMA,
    salt: cache.salt,
    slug: spec.slug,
    version: spec.version,
    yamlSha256,
    writtenAt,
    files,
    capabilities: index.capabilities.map((c) => ({ id: c.spec.id, domains: [...dialogueIndexOf(c).domains].map(([d, list]) => [d, list.map((x) => x.uuid), list.map((x) => x.lastTurnId)]) })),
  });
  return { index, source: "loaded", ...(note ? { note } : {}) };
}

/** A ground-truth file of a capability, as a full load reads it. */
export interface GroundTruthFile {
  capability: CapabilitySpec;
  domain: string;
  /** Path inside the benchmark folder. */
  rel: string;
  size: number;
  mtimeMs: number;
}

/** The capabilities' ground-truth files in the order a full load reads them; null when a folder or file is missing. */
export function groundTruthFiles(root: string, capabilities: readonly CapabilitySpec[]): GroundTruthFile[] | null {
  const out: GroundTruthFile[] = [];
  for (const cap of capabilities) {
    const dir = path.join(root, "groundtruth", cap.directory);
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return null;
    }
    for (const f of names.filter((n) => n.endsWith(".json")).sort()) {
      const rel = `groundtruth/${cap.directory}/${f}`;
      const s = statSync(path.join(root, rel), { throwIfNoEntry: false });
      if (!s?.isFile()) return null;
      out.push({ capability: cap, domain: f.slice(0, -".json".length), rel, size: s.size, mtimeMs: s.mtimeMs });
    }
  }
  return out;
}

/** Whether each file still has the sha256 it was stamped with (read one at a time: memory stays one file). */
function sameContents(root: string, stamps: FileStamp[]): boolean {
  for (const [rel, , , hash] of stamps) if (sha256(readFileSync(path.join(root, rel))) !== hash) return false;
  return true;
}

const sameNames = (files: FileStamp[], listed: GroundTruthFile[]) => files.length === listed.length && files.every((f, i) => f[0] === listed[i]!.rel);

/** The cache file's contents, or null when it is missing or not a cache file of this shape. */
function readCache(file: string): CacheFile | null {
  try {
    const v = JSON.parse(readFileSync(file, "utf8")) as CacheFile;
    const ok =
      v !== null &&
      typeof v === "object" &&
      typeof v.schema === "number" &&
      typeof v.salt === "string" &&
      typeof v.yamlSha256 === "string" &&
      typeof v.writtenAt === "number" &&
      Array.isArray(v.files) &&
      v.files.every((f) => Array.isArray(f) && f.length === 4 && typeof f[0] === "string" && typeof f[1] === "number" && typeof f[2] === "number" && typeof f[3] === "string") &&
      Array.isArray(v.capabilities);
    return ok ? v : null;
  } catch {
    return null;
  }
}

/** The index the cache holds, or null when it does not fit the benchmark's capabilities. */
function indexFromCache(root: string, spec: BenchmarkSpec, cached: CacheFile): GroundTruthIndex | null {
  if (cached.capabilities.length !== spec.capabilities.length) return null;
  const capabilities: DialogueIndex[] = [];
  for (const [i, capSpec] of spec.capabilities.entries()) {
    const c = cached.capabilities[i]!;
    if (!c || c.id !== capSpec.id || !Array.isArray(c.domains)) return null;
    const domains = new Map<string, IndexedDialogue[]>();
    for (const entry of c.domains) {
      if (!Array.isArray(entry) || entry.length !== 3) return null;
      const [domain, uuids, turns] = entry;
      if (typeof domain !== "string" || !Array.isArray(uuids) || !Array.isArray(turns) || uuids.length !== turns.length) return null;
      const list: IndexedDialogue[] = new Array(uuids.length);
      for (let k = 0; k < uuids.length; k++) {
        const uuid = uuids[k];
        const lastTurnId = turns[k];
        if (typeof uuid !== "string" || typeof lastTurnId !== "number") return null;
        list[k] = { uuid, domain, lastTurnId };
      }
      domains.set(domain, list);
    }
    capabilities.push(dialogueIndex(capSpec, domains));
  }
  return { root, spec, capabilities };
}

/** Writes the cache atomically (temporary file, then rename); a failure is returned as a note, never thrown. */
async function writeCache(file: string, contents: CacheFile): Promise<string | undefined> {
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(tmp, JSON.stringify(contents));
    await rename(tmp, file);
    return undefined;
  } catch (err) {
    return `ground-truth index not cached (${err instanceof Error ? err.message : String(err)})`;
  }
}
