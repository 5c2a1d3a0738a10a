/**
 * The main job rebuilds the demo benchmark only when it must (scripts/demo/build-stamp.ts): the
 * stamp holds while neither the generator nor a file it wrote changed, and names what changed
 * otherwise; the generator's inputs reach its question plans and the tool servers it runs.
 */
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { demoBuildNeeded, demoInputFiles, writeDemoStamp } from "@/scripts/demo/build-stamp";

let demo: string;
beforeEach(() => {
  demo = mkdtempSync(path.join(tmpdir(), "agentboard-demo-stamp-"));
  for (const [rel, text] of [
    ["benchmark.yaml", "slug: demo\n"],
    ["environment/universes.json", "{}\n"],
    ["groundtruth/capability_1_bi_apis/harbor.json", "[]\n"],
    ["input/capability_1_bi_apis/harbor.json", "[]\n"],
    ["submissions/oracle/metadata.json", "{}\n"],
    // Not written by a build: never part of the stamp.
    ["environment/server.ts", "// tool server\n"],
  ] as const) {
    mkdirSync(path.dirname(path.join(demo, rel)), { recursive: true });
    writeFileSync(path.join(demo, rel), text);
  }
});
afterEach(() => rmSync(demo, { recursive: true, force: true }));

describe("the demo's build stamp", () => {
  it("holds after a build until the generator or a file it wrote changes, and says which", async () => {
    expect(await demoBuildNeeded(demo, "inputs-1")).toBe("no record of a former build");
    await writeDemoStamp(demo, "inputs-1");
    expect(await demoBuildNeeded(demo, "inputs-1")).toBeNull();
    writeFileSync(path.join(demo, "environment/server.ts"), "// edited, but a source: the inputs hash covers it\n");
    expect(await demoBuildNeeded(demo, "inputs-1")).toBeNull();
    expect(await demoBuildNeeded(demo, "inputs-2")).toBe("its generator changed since the last build");

    writeFileSync(path.join(demo, "groundtruth/capability_1_bi_apis/harbor.json"), "[{}]\n");
    expect(await demoBuildNeeded(demo, "inputs-1")).toBe("groundtruth/capability_1_bi_apis/harbor.json changed since the last build");
    await writeDemoStamp(demo, "inputs-1");
    writeFileSync(path.join(demo, "submissions/oracle/extra.json"), "[]\n");
    expect(await demoBuildNeeded(demo, "inputs-1")).toBe("submissions/oracle/extra.json appeared since the last build");
    await writeDemoStamp(demo, "inputs-1");
    unlinkSync(path.join(demo, "benchmark.yaml"));
    expect(await demoBuildNeeded(demo, "inputs-1")).toBe("benchmark.yaml is missing since the last build");
  });

  it("counts as the generator's inputs its own modules, the tool servers' and the lockfile", async () => {
    const files = await demoInputFiles();
    for (const f of ["scripts/demo/build-demo.ts", "scripts/demo/question-plans.ts", "scripts/demo/agents.ts", "benchmarks/demo/environment/server.ts", "benchmarks/demo/environment/generate-rows.ts", "benchmarks/demo/environment/tools/data-tools.ts", "package-lock.json"]) expect(files).toContain(f);
    expect(files.some((f) => f.startsWith("node_modules/"))).toBe(false);
  });
});
