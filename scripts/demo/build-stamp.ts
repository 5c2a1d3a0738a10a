/**
 * Whether the demo benchmark needs building again: the main job builds it on every start
 * otherwise, executing 300 ground-truth dialogues over MCP (about 20 s) to write the same bytes.
 * A build leaves a stamp (git-ignored, in the folder's `.agentboard-cache/`): the content hash of
 * everything the generator runs (its source files and the environment server's, found by
 * esbuild from their entries, and the lockfile, which pins the packages they use) and the
 * sha256 of every file it wrote. The build is skipped while both still hold.
 */
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { build } from "esbuild";

const REPO = path.resolve(import.meta.dirname, "../..");
/** What the generator runs: itself and the tool servers it executes the ground truth against. */
const ENTRIES = ["scripts/demo/build-demo.ts", "benchmarks/demo/environment/server.ts"];
/** The folders and files a build writes (build-demo.ts), all of which the stamp covers. */
const OUTPUTS = ["benchmark.yaml", "environment/universes.json", "groundtruth", "input", "submissions", "calibration", "judge-truth.json"];

export interface DemoStamp {
  inputs: string;
  files: Record<string, string>;
}

const stampFile = (demoDir: string) => path.join(demoDir, ".agentboard-cache", "demo-build.json");
const sha256 = (bytes: Buffer | string) => createHash("sha256").update(bytes).digest("hex");

/** The files a demo build depends on, relative to the repository: the generator's sources and the lockfile. */
export async function demoInputFiles(): Promise<string[]> {
  const result = await build({ absWorkingDir: REPO, entryPoints: ENTRIES, bundle: true, write: false, metafile: true, platform: "node", format: "esm", packages: "external", outdir: "out", logLevel: "silent" });
  return [...Object.keys(result.metafile.inputs), "package-lock.json"].sort();
}

/** One hash of those files, by path and content. */
export async function demoInputsHash(): Promise<string> {
  const files = await demoInputFiles();
  const hash = createHash("sha256");
  // A copy of the sources may come without the lockfile (scripts/test-app.ts leaves it out): that counts as its content.
  for (const rel of files) hash.update(`${rel}\0${sha256(await readFile(path.join(REPO, rel)).catch(() => "(absent)"))}\0`);
  return hash.digest("hex");
}

/** Every file under the outputs, by path relative to the demo folder, with its sha256. */
async function outputFiles(demoDir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const visit = async (rel: string): Promise<void> => {
    const abs = path.join(demoDir, rel);
    const entries = await readdir(abs, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
      if (err.code === "ENOTDIR") return null;
      if (err.code === "ENOENT") return [];
      throw err;
    });
    if (entries === null) files[rel] = sha256(await readFile(abs));
    else for (const e of entries) await visit(path.posix.join(rel, e.name));
  };
  for (const rel of OUTPUTS) await visit(rel);
  return files;
}

/** Why the demo must be built (no stamp, its generator changed, a file it wrote changed), or null when it is current. */
export async function demoBuildNeeded(demoDir: string, inputs: string): Promise<string | null> {
  let stamp: DemoStamp;
  try {
    stamp = JSON.parse(await readFile(stampFile(demoDir), "utf8")) as DemoStamp;
  } catch {
    return "no record of a former build";
  }
  if (stamp.inputs !== inputs) return "its generator changed since the last build";
  const now = await outputFiles(demoDir);
  const names = new Set([...Object.keys(now), ...Object.keys(stamp.files)]);
  for (const rel of [...names].sort()) if (now[rel] !== stamp.files[rel]) return `${rel} ${rel in now ? (rel in stamp.files ? "changed" : "appeared") : "is missing"} since the last build`;
  return null;
}

/** Records the build just made. */
export async function writeDemoStamp(demoDir: string, inputs: string): Promise<void> {
  await mkdir(path.dirname(stampFile(demoDir)), { recursive: true });
  const stamp: DemoStamp = { inputs, files: await outputFiles(demoDir) };
  await writeFile(stampFile(demoDir), JSON.stringify(stamp) + "\n");
}
