/**
 * `./agentboard` run as a program (its first line, not `node agentboard`): it starts, and it
 * fixes glibc's mmap threshold, which keeps 20-25 MB of freed file buffers out of a scoring run's
 * peak memory (docs/performance.md, "The compat run at VAKRA's cost").
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
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
});
