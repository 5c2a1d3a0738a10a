/**
 * One copy of each long string: the pool itself, then what a benchmark load and a bundle's
 * validation keep alive when the same tool response repeats across dialogues (as a table
 * fetched by the same call does). String identity cannot be observed from JavaScript, so the
 * load and the validation are measured by the heap they keep after a full collection.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { getHeapStatistics } from "node:v8";
import { afterAll, describe, expect, it } from "vitest";
import { loadBenchmark } from "@/lib/benchmark/load-benchmark";
import { JsonNumber } from "@/lib/formats/lossless-json";
import { StringPool } from "@/lib/formats/string-pool";
import { boundHeap, enableCollector } from "@/lib/validate/heap-bound";
import { validateBundle } from "@/lib/validate/validate-bundle";
import { GOOD_BUNDLE, MINI_BENCHMARK } from "../../helpers/mini-fixtures";

const MiB = 1024 * 1024;

describe("StringPool", () => {
  it("gives back equal long strings, keeps short ones and every other value, and walks arrays and objects in place", () => {
    const pool = new StringPool();
    const long = "row,".repeat(300);
    const big = new JsonNumber("3.0");
    const value: unknown = [long.slice(0), { table: long.slice(0), n: 1, big, nested: [[long.slice(0)]] }, "short", null];
    expect(pool.value(value)).toBe(value);
    expect(value).toEqual([long, { table: long, n: 1, big, nested: [[long]] }, "short", null]);
    expect((value as unknown[])[1]).toHaveProperty("big", big);
    expect(pool.string(long.slice(0))).toBe(long);
    expect(pool.string("short")).toBe("short");
  });

  it("replaces a long string under an own __proto__ key as data, leaving the prototype alone", () => {
    const pool = new StringPool();
    const long = "x".repeat(2000);
    pool.string(long);
    const o = JSON.parse(`{"__proto__": "${long}", "a": "${long}"}`) as Record<string, unknown>;
    pool.value(o);
    expect(Object.getPrototypeOf(o)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(o, "__proto__")?.value).toBe(long);
    expect(o.a).toBe(long);
  });
});

describe("a load and a validation keep one copy of a repeated tool response", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "agentboard-pool-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const DIALOGUES = 64;
  /** 256 KiB: the 64 copies a parser makes are 16 MiB in each of the files. */
  const table = "harbor,ships,2020\n".repeat(14_564);
  const dialogue = (uuid: string, prediction: boolean) => ({
    uuid,
    domain: "harbor",
    ...(prediction ? { status: "success", error: "", duration_s: 1 } : { additional_instructions: "" }),
    output: [{ turn_id: 0, query: "How many ships docked in 2020?", answer: "42", sequence: { tool_call: [{ name: "get_docked_ships", arguments: { year: 2020 } }], tool_response: [table] } }],
  });
  const uuids = Array.from({ length: DIALOGUES }, (_, i) => `ts-${i + 1}`);

  const benchmark = path.join(dir, "benchmark");
  cpSync(MINI_BENCHMARK, benchmark, { recursive: true });
  writeFileSync(path.join(benchmark, "groundtruth/capability_2_dashboard_apis/harbor.json"), JSON.stringify(uuids.map((u) => dialogue(u, false))));
  const bundle = path.join(dir, "bundle");
  cpSync(GOOD_BUNDLE, bundle, { recursive: true });
  writeFileSync(path.join(bundle, "output/capability_2_dashboard_apis/harbor.json"), JSON.stringify(uuids.map((u) => dialogue(u, true))));

  /** Heap in use after a full collection. */
  const settled = () => {
    boundHeap(0);
    return getHeapStatistics().used_heap_size;
  };

  it("loading the ground truth", async () => {
    enableCollector();
    const before = settled();
    const loaded = await loadBenchmark(benchmark);
    const kept = settled() - before;
    expect(loaded.capabilities[0]!.domains.get("harbor")).toHaveLength(DIALOGUES);
    // One 256 KiB copy and the small rest; a copy per dialogue is 16 MiB.
    expect(kept).toBeLessThan(4 * MiB);
  });

  it("validating a bundle that keeps its predictions", async () => {
    enableCollector();
    const loaded = await loadBenchmark(benchmark);
    const before = settled();
    const { report, submission } = await validateBundle(bundle, loaded);
    const kept = settled() - before;
    expect(report.valid, JSON.stringify(report)).toBe(true);
    expect(submission!.capabilities.get("tool_selection")?.size).toBe(DIALOGUES);
    expect(kept).toBeLessThan(4 * MiB);
  });
});
