/**
 * A fresh `npm install` leaves `git status` clean (issue 27, point 2): npm, given package.json
 * and the committed package-lock.json, writes that lockfile back byte for byte. Were it to
 * rewrite it (a `bin` or `engines` change that never reached the lockfile, a dependency added
 * by hand), every new checkout would carry a local change and every build's manifest would say
 * "with local changes". npm is asked offline, for the lockfile alone, in a temp copy: no
 * network, no node_modules, a few seconds.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const repo = path.resolve(import.meta.dirname, "../..");
const dir = mkdtempSync(path.join(tmpdir(), "agentboard-lockfile-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("package-lock.json", () => {
  it("is what npm install writes for package.json (a fresh install changes no committed file)", () => {
    for (const file of ["package.json", "package-lock.json", ".npmrc"]) if (existsSync(path.join(repo, file))) copyFileSync(path.join(repo, file), path.join(dir, file));
    const npm = spawnSync("npm", ["install", "--package-lock-only", "--ignore-scripts", "--offline", "--no-audit", "--no-fund"], { cwd: dir, encoding: "utf8", timeout: 120_000 });
    expect(npm.status, `npm install could not settle the lockfile offline (a dependency missing from it?):\n${npm.stderr}`).toBe(0);
    const committed = readFileSync(path.join(repo, "package-lock.json"), "utf8").split("\n");
    const written = readFileSync(path.join(dir, "package-lock.json"), "utf8").split("\n");
    const changed = written.flatMap((line, i) => (line === committed[i] ? [] : [`line ${i + 1}: ${JSON.stringify(committed[i] ?? null)} → ${JSON.stringify(line)}`]));
    expect(changed.slice(0, 20), "npm rewrites package-lock.json: run `npm install` and commit the lockfile it writes").toEqual([]);
    expect(written.length).toBe(committed.length);
  }, 150_000);
});
