/**
 * Where a benchmark folder keeps its ground truth, so `--benchmark` takes VAKRA's data as it is:
 *
 * - Agentboard's layout: `groundtruth/<capability_dir>/<domain>.json`, questions (and the
 *   policies VAKRA keeps there) in `input/<capability_dir>/<domain>.json`.
 * - VAKRA's data release (Hugging Face `ibm-research/VAKRA`, downloaded to `data/` by its
 *   `make download`), pointed at one split such as `data/test`:
 *   `<capability_dir>/input/<domain>.json` beside the ground truth in
 *   `<capability_dir>/output/<domain>.json`; the layout of VAKRA's evaluator README, with
 *   `<capability_dir>/groundtruth/<domain>.json`; or, where a capability has `input/` alone
 *   (the release's capability 4), input records that carry their ground-truth `output` turns.
 * - VAKRA's `sample_data`: `<capability_dir>/input.json` and `<capability_dir>/output.json`,
 *   one domain per file, named by its records' `domain`.
 *
 * A VAKRA capability folder may also be the folder given itself. What cannot be read as any of
 * these is a precise problem, never a guess. Pure: reads the file system, no environment.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { BenchmarkSpecInput } from "./spec";
import { vakraDefaults } from "./vakra-defaults";

export type LayoutKind = "agentboard" | "vakra-data" | "vakra-sample";

/** One file the loader reads. */
export interface LayoutFile {
  /** Path inside the benchmark folder, `/`-separated: what messages name. */
  rel: string;
  abs: string;
  /**
   * The name it is hashed under, the same in every layout (`groundtruth/<dir>/<domain>.json`,
   * `input/<dir>/<domain>.json`): the same data hashes alike wherever it sits.
   */
  key: string;
}

export interface CapabilityFolder {
  directory: string;
  kind: LayoutKind;
  /** Where its ground truth sits, for messages (`capability_1_bi_apis/output`). */
  where: string;
  /** Per `<domain>.json`: the ground-truth file and, when there is one, the input file. */
  files: Map<string, { groundTruth: LayoutFile; input?: LayoutFile }>;
  /** Why this folder's ground truth cannot be read; set only when the benchmark needs the folder. */
  problem?: string;
  /** A fact worth saying once (e.g. ground truth taken from input files). */
  note?: string;
}

export interface GroundTruthLayout {
  /** The layout of the folder (VAKRA's when any capability folder is). */
  kind: LayoutKind;
  /** Capability folders found, by directory name. */
  folders: Map<string, CapabilityFolder>;
  /** What makes the whole folder unreadable (e.g. it holds VAKRA's splits, not one of them). */
  problems: string[];
  /** Where a capability's folder was expected, for "folder missing" messages. */
  expected(directory: string): string;
}

/** VAKRA's capability folders: `capability_<n>_<name>`. */
export const VAKRA_CAPABILITY_DIR = /^capability_\d+_[A-Za-z0-9_.-]+$/;
/** A domain name usable as a file name (it comes from a record in sample_data). */
const SAFE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

const isDir = (p: string) => statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;
const isFile = (p: string) => statSync(p, { throwIfNoEntry: false })?.isFile() ?? false;
const jsonFiles = (dir: string) => readdirSync(dir).filter((f) => f.endsWith(".json") && isFile(path.join(dir, f))).sort();
const join = (...parts: string[]) => parts.filter(Boolean).join("/");

export function resolveLayout(root: string): GroundTruthLayout {
  const folders = new Map<string, CapabilityFolder>();
  if (isDir(path.join(root, "groundtruth"))) {
    for (const dir of readdirSync(path.join(root, "groundtruth")).sort()) {
      const abs = path.join(root, "groundtruth", dir);
      if (!isDir(abs)) continue;
      const files = new Map<string, { groundTruth: LayoutFile; input?: LayoutFile }>();
      for (const f of jsonFiles(abs)) {
        const input = path.join(root, "input", dir, f);
        files.set(f, {
          groundTruth: { rel: `groundtruth/${dir}/${f}`, abs: path.join(abs, f), key: `groundtruth/${dir}/${f}` },
          // Read when it exists (the loader tolerates its absence).
          input: { rel: `input/${dir}/${f}`, abs: input, key: `input/${dir}/${f}` },
        });
      }
      folders.set(dir, { directory: dir, kind: "agentboard", where: `groundtruth/${dir}`, files });
    }
    return { kind: "agentboard", folders, problems: [], expected: (d) => `groundtruth/${d}` };
  }

  const base = path.basename(path.resolve(root));
  const subdirs = isDir(root) ? readdirSync(root).filter((d) => isDir(path.join(root, d))).sort() : [];
  const capabilityDirs = subdirs.filter((d) => VAKRA_CAPABILITY_DIR.test(d));
  // The folder given is one capability's (`data/test/capability_2_dashboard_apis`).
  if (capabilityDirs.length === 0 && VAKRA_CAPABILITY_DIR.test(base) && looksLikeVakraCapability(root)) {
    const folder = vakraFolder(root, base, "");
    return { kind: folder.kind, folders: new Map([[base, folder]]), problems: [], expected: () => "." };
  }
  if (capabilityDirs.length === 0) {
    const splits = subdirs.filter((d) => readdirSync(path.join(root, d)).some((c) => VAKRA_CAPABILITY_DIR.test(c) && isDir(path.join(root, d, c))));
    const problems = splits.length
      ? [`${root}: holds VAKRA's data split${splits.length > 1 ? "s" : ""} ${splits.join(", ")}, not capability folders: use one of them (${path.join(root, splits[0]!)})`]
      : [];
    return { kind: "agentboard", folders, problems, expected: (d) => `groundtruth/${d}` };
  }
  let sample = false;
  for (const dir of capabilityDirs) {
    const folder = vakraFolder(path.join(root, dir), dir, dir);
    sample ||= folder.kind === "vakra-sample";
    folders.set(dir, folder);
  }
  return { kind: sample ? "vakra-sample" : "vakra-data", folders, problems: [], expected: (d) => d };
}

function looksLikeVakraCapability(dir: string): boolean {
  return ["input", "output", "groundtruth"].some((d) => isDir(path.join(dir, d))) || isFile(path.join(dir, "output.json"));
}

/** One VAKRA capability folder at `abs`, named `dir`, at `rel` inside the benchmark folder. */
function vakraFolder(abs: string, dir: string, rel: string): CapabilityFolder {
  const files = new Map<string, { groundTruth: LayoutFile; input?: LayoutFile }>();
  const has = (d: string) => isDir(path.join(abs, d)) && jsonFiles(path.join(abs, d)).length > 0;
  const inputOf = (f: string): LayoutFile | undefined =>
    isFile(path.join(abs, "input", f)) ? { rel: join(rel, "input", f), abs: path.join(abs, "input", f), key: `input/${dir}/${f}` } : undefined;
  const fromFolder = (sub: string, note?: string): CapabilityFolder => {
    for (const f of jsonFiles(path.join(abs, sub))) {
      const input = inputOf(f);
      files.set(f, { groundTruth: { rel: join(rel, sub, f), abs: path.join(abs, sub, f), key: `groundtruth/${dir}/${f}` }, ...(input ? { input } : {}) });
    }
    return { directory: dir, kind: "vakra-data", where: join(rel, sub), files, ...(note ? { note } : {}) };
  };
  const [gt, out] = [has("groundtruth"), has("output")];
  if (gt && out) {
    return { directory: dir, kind: "vakra-data", where: join(rel, "output"), files, problem: `${join(rel, "groundtruth")} and ${join(rel, "output")} both hold domain files: keep the ground truth in one of them` };
  }
  if (gt) return fromFolder("groundtruth");
  if (out) return fromFolder("output");
  if (isFile(path.join(abs, "output.json"))) return sampleFolder(abs, dir, rel);
  if (has("input")) return fromFolder("input", `ground truth read from the input files' "output" turns (${join(rel, "input")}), where VAKRA's release keeps it for this capability`);
  return {
    directory: dir,
    kind: "vakra-data",
    where: rel || ".",
    files,
    problem: `${rel || "."}: no ground truth (expected ${join(rel, "output")}/<domain>.json, ${join(rel, "groundtruth")}/<domain>.json, or sample_data's ${join(rel, "output.json")})`,
  };
}

/** sample_data's pair: `output.json` (ground truth) and `input.json`, named by the records' one domain. */
function sampleFolder(abs: string, dir: string, rel: string): CapabilityFolder {
  const where = join(rel, "output.json");
  const files = new Map<string, { groundTruth: LayoutFile; input?: LayoutFile }>();
  const fail = (problem: string): CapabilityFolder => ({ directory: dir, kind: "vakra-sample", where, files, problem });
  let records: unknown;
  try {
    records = JSON.parse(readFileSync(path.join(abs, "output.json"), "utf8"));
  } catch (err) {
    return fail(`${where}: not readable as JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  if (!Array.isArray(records)) return fail(`${where}: expected a top-level array of ground-truth records`);
  const domains = [...new Set(records.map((r) => (r && typeof r === "object" ? (r as Record<string, unknown>).domain : undefined)))];
  const named = domains.filter((d): d is string => typeof d === "string");
  if (named.length !== domains.length || named.length === 0) return fail(`${where}: every record needs a "domain" (the file's domain is named by it)`);
  if (named.length > 1) {
    return fail(`${where}: holds records of ${named.length} domains (${named.slice(0, 5).join(", ")}${named.length > 5 ? ", …" : ""}); one domain per file is read: split it into ${join(rel, "output")}/<domain>.json files`);
  }
  const domain = named[0]!;
  if (!SAFE_NAME.test(domain)) return fail(`${where}: domain "${domain.slice(0, 80)}" is not usable as a file name (letters, digits, _ . - only)`);
  const f = `${domain}.json`;
  const input = isFile(path.join(abs, "input.json")) ? { rel: join(rel, "input.json"), abs: path.join(abs, "input.json"), key: `input/${dir}/${f}` } : undefined;
  files.set(f, { groundTruth: { rel: where, abs: path.join(abs, "output.json"), key: `groundtruth/${dir}/${f}` }, ...(input ? { input } : {}) });
  return { directory: dir, kind: "vakra-sample", where, files };
}

/**
 * The benchmark a folder without benchmark.yaml describes: VAKRA's, limited in VAKRA's own
 * layouts to the capability folders present (sample_data has two of the four).
 */
export function layoutDefaults(root: string): BenchmarkSpecInput {
  const layout = resolveLayout(root);
  if (layout.kind === "agentboard") return vakraDefaults;
  const present = vakraDefaults.capabilities.filter((c) => layout.folders.has(c.directory));
  return present.length ? { ...vakraDefaults, capabilities: present } : vakraDefaults;
}
