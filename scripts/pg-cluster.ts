/**
 * A throwaway Postgres cluster for the tests (and benches): initdb in a temp folder, started
 * on a free loopback port, stopped and deleted by `stop()`. Uses Debian's `postgresql`
 * binaries (/usr/lib/postgresql/<v>/bin); as root they run as the `postgres` user.
 *
 *   tsx scripts/pg-cluster.ts   starts one, prints its URL, stops it on Ctrl-C
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

export interface PgCluster {
  /** The superuser's URL of the `postgres` database (create test databases from it). */
  url: string;
  port: number;
  dir: string;
  stop(): void;
}

/** The newest installed Postgres bin folder, or null. */
export function postgresBin(): string | null {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(path.join(root, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(root, versions[0]!, "bin") : null;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export async function startPgCluster(): Promise<PgCluster> {
  const bin = postgresBin();
  if (!bin) throw new Error("Postgres is not installed (apt-get install -y postgresql)");
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(path.join(tmpdir(), "agentboard-pg-"));
  const data = path.join(dir, "data");
  let uid = -1;
  if (asRoot) {
    uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  const run = (cmd: string, args: string[]) => {
    const full = asRoot ? ["runuser", ["-u", "postgres", "--", path.join(bin, cmd), ...args]] : [path.join(bin, cmd), args];
    const r = spawnSync(full[0] as string, full[1] as string[], { encoding: "utf8", cwd: dir });
    if (r.status !== 0) throw new Error(`${cmd} failed (${r.status}): ${(r.stderr || r.stdout).slice(-2000)}`);
  };
  const user = asRoot ? "postgres" : (process.env.USER ?? "postgres");
  run("initdb", ["-D", data, "-A", "trust", "-U", user, "--no-sync", "-E", "UTF8", "--locale=C"]);
  const port = await freePort();
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
  run("pg_ctl", ["-D", data, "-l", path.join(dir, "log"), "-w", "-t", "60", "-o", opts, "start"]);
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
    } catch {
      // already gone
    }
    rmSync(dir, { recursive: true, force: true });
  };
  return { url: `postgres://${user}@127.0.0.1:${port}/postgres`, port, dir, stop };
}

/**
 * Restarts a cluster started by startPgCluster (for fault tests): same port, same data. Does
 * not block the event loop, so servers in the calling process keep answering meanwhile.
 */
export function restartPgCluster(cluster: PgCluster): Promise<void> {
  const bin = postgresBin()!;
  const asRoot = process.getuid?.() === 0;
  const data = path.join(cluster.dir, "data");
  const args = ["-D", data, "-l", path.join(cluster.dir, "log"), "-m", "fast", "-w", "-t", "120", "restart"];
  const [cmd, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", path.join(bin, "pg_ctl"), ...args]] : [path.join(bin, "pg_ctl"), args];
  return new Promise((resolve, reject) => {
    const p = spawn(cmd as string, argv as string[], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    p.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
    p.once("error", reject);
    p.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`pg_ctl restart failed (${code}): ${stderr.slice(-2000)}`))));
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const cluster = await startPgCluster();
  process.stdout.write(`${cluster.url}\n`);
  const end = () => {
    cluster.stop();
    process.exit(0);
  };
  process.on("SIGINT", end);
  process.on("SIGTERM", end);
  setInterval(() => {}, 1 << 30);
}
