/**
 * Bundles the command line ahead of time: `npm run build:cli`, and `npm install` through
 * `prepare`. esbuild writes `dist/cli/` (git-ignored): `cli.mjs`, one chunk per command's code
 * (split at the CLI's `import()`s, so a command loads only what it needs) and the worker
 * threads' entries. better-sqlite3 (a native addon, found by its own loader) and pg (hosted
 * mode; it requires its optional native binding, pg-native, only when asked, which a bundle
 * cannot leave unresolved) and the AWS SDK (object storage; a CommonJS package whose bundled
 * chunk exports no names, and large: loaded only when storage is s3://) stay external,
 * resolved from node_modules at run time; every other
 * dependency is bundled, which spares Node resolving hundreds of files at start. Migrations
 * (db/migrations, db/migrations-pg) are not bundled: db/client.ts finds them beside itself.
 *
 * `dist/cli/build.json` records the bundle's id and every source file it was built from
 * (size, mtime, sha256): the launcher (`./agentboard` at the repository root) runs the source through tsx
 * instead when any of them changed since, so no command ever runs stale code.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { build, type Plugin } from "esbuild";
import { gitCommit } from "./commands/build-info";

const ROOT = path.resolve(import.meta.dirname, "..");
const CLI_DIST = path.join(ROOT, "dist/cli");

/** Entry points: the CLI and the worker threads it may start (named as `bundledWorker()` asks). */
const ENTRIES = {
  cli: "scripts/cli.ts",
  "validate-worker": "lib/validate/validate-worker.ts",
  "score-worker": "lib/scoring/score-worker.ts",
};

/** Packages left to Node's resolver (see the header). */
const EXTERNAL = ["better-sqlite3", "pg", "@aws-sdk/*"];

/** Stands for the bundle's id until its content hash is known. */
const ID_PLACEHOLDER = "@@AGENTBOARD_BUILD_ID@@";

/**
 * `import.meta.dirname` in our sources means "the folder of this source file" (db/client.ts
 * finds its migrations so); in a chunk it would be dist/cli. Rewritten to the source folder,
 * relative to the chunk, so the bundle still works when the checkout moves.
 */
const sourceDirname: Plugin = {
  name: "source-dirname",
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const text = readFileSync(args.path, "utf8");
      if (!text.includes("import.meta.dirname")) return { contents: text, loader: "ts" };
      const rel = path.relative(CLI_DIST, path.dirname(args.path)).split(path.sep).join("/");
      return { contents: text.replaceAll("import.meta.dirname", `(import.meta.dirname + ${JSON.stringify(`/${rel}`)})`), loader: "ts" };
    });
  },
};

/** The npm package a bundled file comes from, or null for our own sources. */
function packageOf(input: string): string | null {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input.slice(input.lastIndexOf("node_modules/")));
  return m ? m[1]! : null;
}

export interface BuiltCli {
  dir: string;
  id: string;
  files: number;
  ms: number;
}

export async function buildCli(outDir: string = CLI_DIST): Promise<BuiltCli> {
  const started = performance.now();
  const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string };
  const info = { version: pkg.version, commit: gitCommit(ROOT), id: ID_PLACEHOLDER };
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: ENTRIES,
    outdir: outDir,
    outExtension: { ".js": ".mjs" },
    chunkNames: "chunk-[hash]",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external: EXTERNAL,
    define: { AGENTBOARD_BUILD: JSON.stringify(info) },
    // Bundled CommonJS packages call require(); give ESM chunks one.
    banner: { js: 'import { createRequire as __agentboardRequire } from "node:module"; const require = __agentboardRequire(import.meta.url);' },
    plugins: [sourceDirname],
    metafile: true,
    write: false,
    logLevel: "warning",
    // db/client.ts keeps a fallback for Next's bundle, where import.meta.dirname is undefined.
    logOverride: { "suspicious-nullish-coalescing": "silent" },
    legalComments: "none",
  });
  const outputs = [...result.outputFiles].sort((a, b) => (a.path < b.path ? -1 : 1));
  const hash = createHash("sha256");
  for (const f of outputs) hash.update(path.basename(f.path)).update(f.contents);
  const id = hash.digest("hex").slice(0, 16);

  // Written beside the old bundle, then swapped in: a command starting meanwhile sees one or the other.
  const staging = `${outDir}.${process.pid}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  for (const f of outputs) writeFileSync(path.join(staging, path.basename(f.path)), f.text.replaceAll(ID_PLACEHOLDER, id));
  const inputs = Object.keys(result.metafile.inputs)
    .filter((p) => !p.startsWith("node_modules/") && !p.startsWith("<"))
    .concat("package.json")
    .sort()
    .map((rel) => {
      const abs = path.join(ROOT, rel);
      const s = statSync(abs);
      return [rel, s.size, s.mtimeMs, createHash("sha256").update(readFileSync(abs)).digest("hex")] as const;
    });
  // Which packages each output holds (or imports, when external): what a command loads, checkable.
  const chunks = Object.fromEntries(
    Object.entries(result.metafile.outputs).map(([file, o]) => {
      const inside = Object.keys(o.inputs).map(packageOf);
      const external = o.imports.filter((i) => i.external && !i.path.startsWith("node:") && !builtinModules.includes(i.path)).map((i) => packageOf(`node_modules/${i.path}`));
      return [path.basename(file), [...new Set([...inside, ...external].filter((p): p is string => p !== null))].sort()];
    }),
  );
  writeFileSync(path.join(staging, "build.json"), JSON.stringify({ id, version: info.version, commit: info.commit, entries: Object.keys(ENTRIES), chunks, inputs }) + "\n");
  // Another build may swap its own in at the same moment (two test runs): retry the swap a few times; either build is complete.
  const old = `${outDir}.${process.pid}.old`;
  for (let attempt = 0; ; attempt++) {
    try {
      renameSync(outDir, old);
    } catch {
      // nothing built yet
    }
    try {
      renameSync(staging, outDir);
      break;
    } catch (err) {
      if (attempt >= 3) throw err;
    }
  }
  rmSync(old, { recursive: true, force: true });
  return { dir: outDir, id, files: readdirSync(outDir).length, ms: Math.round(performance.now() - started) };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const built = await buildCli();
  process.stdout.write(`built ${path.relative(ROOT, built.dir)}/ (${built.files} files, id ${built.id}) in ${built.ms} ms\n`);
}
