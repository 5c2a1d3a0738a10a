/**
 * `serve.ts --processes N` (AGENTBOARD_WEB_PROCESSES): N server processes share the port; one
 * that dies is replaced, and the replica keeps answering; a value out of range is refused.
 */
import { execFileSync, spawn } from "node:child_process";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { spawnServer, waitForServer } from "@/scripts/server/spawn-server";
import { freshDatabase } from "../helpers/engines";
import { freePort, repo } from "./harness";

const cleanup: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const f of cleanup.reverse()) await f();
});

/** The pids of a process's children (the cluster's server processes). */
function children(pid: number): number[] {
  try {
    return execFileSync("pgrep", ["-P", String(pid)], { encoding: "utf8" }).split("\n").filter(Boolean).map(Number);
  } catch {
    return []; // pgrep exits 1 when there are none
  }
}

async function until<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, tries = 1800): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe("web server processes", () => {
  it("serves from two processes and replaces one that dies", async () => {
    const database = await freshDatabase("sqlite");
    cleanup.push(() => database.close());
    const port = await freePort();
    const server = spawnServer({ port, cwd: repo, env: { ...database.env, AGENTBOARD_WEB_PROCESSES: "2" }, detached: true });
    cleanup.push(() => {
      try {
        process.kill(-server.pid!, "SIGTERM");
      } catch {
        // already gone
      }
    });
    const url = `http://127.0.0.1:${port}`;
    expect(await waitForServer(url, 900)).toBe(true);
    const first = await until(() => (children(server.pid!).length === 2 ? children(server.pid!) : undefined), "two server processes");

    process.kill(first[0]!, "SIGKILL");
    const next = await until(() => {
      const now = children(server.pid!);
      return now.length === 2 && !now.includes(first[0]!) ? now : undefined;
    }, "a replacement process");
    expect(next).toContain(first[1]);
    expect(await waitForServer(url, 900)).toBe(true);
    const answers = await Promise.all(Array.from({ length: 8 }, () => fetch(url).then((r) => r.status)));
    expect(answers).toEqual(Array(8).fill(200));
  }, 600_000);

  it("refuses a number of processes out of range", async () => {
    const p = spawn(process.execPath, ["--import", "tsx", path.join(repo, "scripts/server/serve.ts"), "--port", "1", "--processes", "0"], { cwd: repo, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    p.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => p.once("exit", resolve));
    expect(code).toBe(2);
    expect(stderr).toContain("--processes (AGENTBOARD_WEB_PROCESSES) must be a whole number from 1 to 64");
  }, 60_000);
});
