/**
 * Runs the `agentboard` command as a user does (`./agentboard`, the launcher at the repository
 * root and package.json's "bin", which runs the bundle vitest's global setup built from the
 * current source) as its own process, asynchronously, so fake servers in this process keep
 * answering. Node is named rather than the file's shebang, so the test's own node runs it.
 */
import { spawn } from "node:child_process";
import path from "node:path";

export const REPO = path.resolve(import.meta.dirname, "../..");

/** node and its arguments for `agentboard …` (spawn(process.execPath, [...AGENTBOARD, ...args])). */
export const AGENTBOARD = [path.join(REPO, "agentboard")];

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `cwd`: where the command runs (the repository by default), for commands that resolve paths from it. */
export function runCli(args: string[], env: Record<string, string> = {}, cwd: string = REPO): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...AGENTBOARD, ...args], { cwd, env: { ...process.env, FORCE_COLOR: "0", ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
