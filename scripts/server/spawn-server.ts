/** Starts the production server (serve.ts) as a child process: the main job, the web bench and the browser tests share it. */
import { spawn, type ChildProcess, type StdioOptions } from "node:child_process";
import path from "node:path";

/** A larger young generation, so a busy server pauses less for GC. */
export const SERVER_NODE_OPTIONS = "--max-semi-space-size=64";

export interface SpawnServerOptions {
  port: number;
  /** The address to listen on; 127.0.0.1 unless told. */
  host?: string;
  cwd: string;
  env?: Record<string, string | undefined>;
  stdio?: StdioOptions;
  /** Its own process group, so a test can kill the server and everything it started. */
  detached?: boolean;
  /** Run as this user and group (a test of a database the server may not write, when tests run as root). */
  uid?: number;
  gid?: number;
}

export function spawnServer(opts: SpawnServerOptions): ChildProcess {
  const entry = path.join(opts.cwd, "scripts/server/serve.ts");
  return spawn(process.execPath, [SERVER_NODE_OPTIONS, "--import", "tsx", entry, "--host", opts.host ?? "127.0.0.1", "--port", String(opts.port)], {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
    stdio: opts.stdio ?? "ignore",
    detached: opts.detached ?? false,
    ...(opts.uid !== undefined ? { uid: opts.uid } : {}),
    ...(opts.gid !== undefined ? { gid: opts.gid } : {}),
  });
}

/** Polls the server until it answers `/` or the attempts run out. */
export async function waitForServer(url: string, attempts = 150, intervalMs = 200): Promise<boolean> {
  for (let i = 0; i < attempts; i++) {
    if (await fetch(url).then((r) => r.ok).catch(() => false)) return true;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  return false;
}
