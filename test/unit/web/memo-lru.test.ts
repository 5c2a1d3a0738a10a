/** The read-model memo drops its least recently used key, one at a time: unique keys cannot empty it. */
import { describe, expect, it } from "vitest";
import { openDatabase } from "@/db/client";
import { MEMO_MAX_KEYS, memoByDataVersion } from "@/lib/queries/memo";

describe("memoByDataVersion", () => {
  it("keeps a key in use through a flood of unique keys", () => {
    const db = openDatabase(":memory:");
    let computed = 0;
    const hot = () => memoByDataVersion(db, "hot", () => ++computed);
    hot();
    for (let i = 0; i < MEMO_MAX_KEYS * 3; i++) {
      memoByDataVersion(db, `unique-${i}`, () => i);
      hot();
    }
    expect(computed).toBe(1);
  });

  it("forgets the least recently used key when full", () => {
    const db = openDatabase(":memory:");
    let computed = 0;
    memoByDataVersion(db, "cold", () => ++computed);
    for (let i = 0; i < MEMO_MAX_KEYS; i++) memoByDataVersion(db, `filler-${i}`, () => i);
    memoByDataVersion(db, "cold", () => ++computed);
    expect(computed).toBe(2);
  });

  it("never serves one database's value for another at the same data version", () => {
    const a = openDatabase(":memory:");
    const b = openDatabase(":memory:");
    expect(memoByDataVersion(a, "board", () => "a")).toBe("a");
    expect(memoByDataVersion(b, "board", () => "b")).toBe("b");
    expect(memoByDataVersion(a, "board", () => "a again")).toBe("a");
  });
});
