/** Runs `scripts/cli.ts` as its own process (asynchronously, so fake servers in this process keep answering). */
import { spawn } from "node:child_process";
import path from "node:path";

export const REPO = path.resolve(import.meta.dirname, "../..");

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(REPO, "scripts/cli.ts"), ...args], { cwd: REPO, env: { ...process.env, FORCE_COLOR: "0", ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
