/**
 * The test suite's own production build, apart from the checkout's `.next`: a main job serving
 * from this checkout keeps its build while `npm test` runs (a `next build` in the checkout
 * would replace the chunks its pages ask for, answered with 500 meanwhile).
 *
 * The sources are copied into `.agentboard/test-app/` (git-ignored, outside tsconfig's scope)
 * and built there. Inside the checkout on purpose: Node and Turbopack find the checkout's
 * node_modules by walking up, with no link or copy of it. The browser tests serve that build
 * (AGENTBOARD_APP_DIR, read by scripts/server/serve.ts) with the checkout as working folder,
 * so every path they share with the test process (storage, caches, migrations) is the same.
 *
 *   npx tsx scripts/test-app.ts     builds it (npm test does, before vitest); prints its folder
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/** Where serve.ts finds the build it serves: a folder holding `.next/` (default: the working folder). */
export const APP_DIR_ENV = "AGENTBOARD_APP_DIR";

const CHECKOUT = path.resolve(import.meta.dirname, "..");

/** The test build of a checkout. */
export function testAppDir(checkout: string = CHECKOUT): string {
  return path.join(checkout, ".agentboard", "test-app");
}

/** Whether `dir` holds a finished production build. */
export function hasBuild(dir: string): boolean {
  return existsSync(path.join(dir, ".next", "BUILD_ID"));
}

/**
 * Not part of the app's sources: dependencies (found by walking up), builds, data, tests and
 * version control. Everything else is copied, so a new top-level source folder needs no edit.
 */
const NOT_COPIED = new Set([".git", "node_modules", ".next", ".agentboard", "dist", "test", "test-artifacts", "coverage", "tmp", ".scratch", "cache", "package-lock.json", "tsconfig.tsbuildinfo", "next-env.d.ts"]);

/** Copies a checkout's sources (all but NOT_COPIED) into `dir`. */
export function copySources(checkout: string, dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const name of readdirSync(checkout)) {
    if (NOT_COPIED.has(name) || name.endsWith(".log")) continue;
    cpSync(path.join(checkout, name), path.join(dir, name), { recursive: true, preserveTimestamps: true });
  }
}

/**
 * Copies the checkout's sources into `dir` (the former copy removed first, so no deleted file
 * lingers) and runs `next build` there. Without the lockfile in the copy, Next takes the
 * checkout (where the lockfile is) as the workspace root, so the checkout's node_modules resolve.
 */
export function buildTestApp(checkout: string = CHECKOUT, dir: string = testAppDir(checkout)): { dir: string; ok: boolean; ms: number } {
  const started = performance.now();
  rmSync(dir, { recursive: true, force: true });
  copySources(checkout, dir);
  // The test command type-checks the checkout once, before this build (AGENTBOARD_BUILD_TYPECHECK: next.config.mjs).
  const build = spawnSync(process.execPath, [createRequire(import.meta.url).resolve("next/dist/bin/next"), "build"], {
    cwd: dir,
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", AGENTBOARD_BUILD_TYPECHECK: "0" },
  });
  return { dir, ok: build.status === 0 && hasBuild(dir), ms: Math.round(performance.now() - started) };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const built = buildTestApp();
  process.stdout.write(built.ok ? `test build ready in ${path.relative(process.cwd(), built.dir) || "."}/ (${(built.ms / 1000).toFixed(1)} s)\n` : "test build failed\n");
  process.exitCode = built.ok ? 0 : 1;
}
