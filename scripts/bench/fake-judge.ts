/** Starts the fake judge server in a child process (so it never competes with the scorer's event loop). */
import { spawn } from "node:child_process";

export async function startFakeJudge(delayMs: number) {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/bench/fake-judge-server.ts", String(delayMs)], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once("data", (c: Buffer) => resolve(Number(c.toString().trim())));
    child.once("exit", (code) => reject(new Error(`fake judge exited ${code}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    async served(): Promise<number> {
      const r = await fetch(`${url}/stats`);
      return ((await r.json()) as { served: number }).served;
    },
    async close() {
      child.kill();
    },
  };
}
