/**
 * What a parsed value keeps alive: its own characters, never the file's text it was read from.
 * A value cut from the text as a slice (a V8 "sliced string") would keep the whole text alive as
 * long as the value lives, and the scorer keeps a run's ground truth and predictions to its end:
 * the compat run's 5,187 dialogues kept their eight files' texts, 26 MB, through big integers
 * and integral floats alone.
 */
import { getHeapStatistics } from "node:v8";
import { describe, expect, it } from "vitest";
import { JsonNumber, parseLosslessJson } from "@/lib/formats/lossless-json";
import { boundHeap, enableCollector } from "@/lib/validate/heap-bound";

const MiB = 1024 * 1024;

/** Heap in use after a full collection. */
function settled(): number {
  boundHeap(0);
  return getHeapStatistics().used_heap_size;
}

/** Parses a file-sized text (padding between values) and returns only the values. */
function parseDropped(values: string[]): unknown[] {
  let text: string | null = `[${values.join(`,${" ".repeat(8 * MiB)}`)}]`;
  const parsed = parseLosslessJson(text) as unknown[];
  text = null;
  return parsed;
}

describe("parseLosslessJson's values", () => {
  it("keep none of the text they were read from: strings, keys, big integers and integral floats", () => {
    enableCollector();
    const before = settled();
    const kept = parseDropped(['"a string long enough to be sliced"', '{"a key long enough to be sliced": 1}', "123456789012345678901234567890", "31432800000000.0", "-Infinity"]);
    const after = settled();
    expect(kept[2]).toBeInstanceOf(JsonNumber);
    expect((kept[2] as JsonNumber).source).toBe("123456789012345678901234567890");
    expect((kept[3] as JsonNumber).source).toBe("31432800000000.0");
    // The text was over 32 MiB; the values are a few hundred bytes.
    expect(after - before).toBeLessThan(4 * MiB);
  });
});
