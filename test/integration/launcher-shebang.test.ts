/**
 * `./agentboard` run as a program (its first line, not `node agentboard`): it starts, and it
 * fixes glibc's mmap threshold, which keeps 20-25 MB of freed file buffers out of a scoring run's
 * peak memory (docs/performance.md, "The compat run at VAKRA's cost").
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

const launcher = path.resolve(import.meta.dirname, "../../agentboard");

describe("the agentboard launcher's first line", () => {
  it("runs the command when executed directly", () => {
    const r = spawnSync(launcher, ["--version"], { encoding: "utf8" });
    expect(r.error).toBeUndefined();
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^agentboard \d+\.\d+\.\d+/);
  });

  it("sets the mmap threshold for node through env -S", () => {
    const first = readFileSync(launcher, "utf8").split("\n")[0]!;
    expect(first).toMatch(/^#!\/usr\/bin\/env -S (?:\S+=\S+ )*MALLOC_MMAP_THRESHOLD_=131072 (?:\S+=\S+ )*node(?: |$)/);
  });

  it("caps V8's semi-spaces at 8 MB for the program it runs", () => {
    // A preloaded module reports the flags node itself was started with.
    const dir = mkdtempSync(path.join(tmpdir(), "shebang-"));
    const probe = path.join(dir, "probe.cjs");
    writeFileSync(probe, 'process.stderr.write("execArgv=" + JSON.stringify(process.execArgv) + "\\n");\n');
    try {
      const r = spawnSync(launcher, ["--version"], { encoding: "utf8", env: { ...process.env, NODE_OPTIONS: `--require ${probe}` } });
      expect(r.status, r.stderr).toBe(0);
      const line = /execArgv=(.*)/.exec(r.stderr)?.[1];
      expect(line, r.stderr).toBeDefined();
      expect(JSON.parse(line!)).toContain("--max-semi-space-size=8");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
