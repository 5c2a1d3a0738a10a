/** The read-model memo drops its least recently used key, one at a time: unique keys cannot empty it. */
import { afterEach, describe, expect, it } from "vitest";
import { MEMO_MAX_KEYS, memoByDataVersion } from "@/lib/queries/memo";
import { ENGINES, freshDatabase, type TestDatabase } from "../../helpers/engines";

describe.each(ENGINES)("memoByDataVersion (%s)", (engine) => {
  const opened: TestDatabase[] = [];
  const open = async () => {
    const t = await freshDatabase(engine);
    opened.push(t);
    return t.db;
  };
  afterEach(async () => {
    for (const t of opened.splice(0)) await t.close();
  });

  it("keeps a key in use through a flood of unique keys", async () => {
    const db = await open();
    let computed = 0;
    const hot = () => memoByDataVersion(db, "hot", async () => ++computed);
    await hot();
    for (let i = 0; i < MEMO_MAX_KEYS * 3; i++) {
      await memoByDataVersion(db, `unique-${i}`, async () => i);
      await hot();
    }
    expect(computed).toBe(1);
  });

  it("forgets the least recently used key when full", async () => {
    const db = await open();
    let computed = 0;
    await memoByDataVersion(db, "cold", async () => ++computed);
    for (let i = 0; i < MEMO_MAX_KEYS; i++) await memoByDataVersion(db, `filler-${i}`, async () => i);
    await memoByDataVersion(db, "cold", async () => ++computed);
    expect(computed).toBe(2);
  });

  it("never serves one database's value for another at the same data version", async () => {
    const a = await open();
    const b = await open();
    expect(await memoByDataVersion(a, "board", async () => "a")).toBe("a");
    expect(await memoByDataVersion(b, "board", async () => "b")).toBe("b");
    expect(await memoByDataVersion(a, "board", async () => "a again")).toBe("a");
  });

  it("computes once for requests that arrive together, and keeps no failure", async () => {
    const db = await open();
    let computed = 0;
    const values = await Promise.all([1, 2, 3].map(() => memoByDataVersion(db, "together", async () => ++computed)));
    expect(values).toEqual([1, 1, 1]);
    await expect(memoByDataVersion(db, "failing", async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await memoByDataVersion(db, "failing", async () => "recovered")).toBe("recovered");
  });
});
