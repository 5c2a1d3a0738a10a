/** Tree manifests read from the database are untrusted: which paths may be laid out, and a manifest's identity. */
import { describe, expect, it } from "vitest";
import { TreeError, manifestEntries, treeHash, unsafePathReason } from "../../../lib/storage/tree";

const A = "a".repeat(64);
const B = "b".repeat(64);

describe("tree manifests", () => {
  it("accepts plain relative paths", () => {
    for (const rel of ["benchmark.yaml", "groundtruth/cap_1/harbor.json", ".hidden/x", "a b/ünïcode.txt", "..dots-in-a-name"]) expect(unsafePathReason(rel), rel).toBeUndefined();
  });

  it("says why a path could leave the folder", () => {
    expect(unsafePathReason("../x")).toMatch(/'\.\.'/);
    expect(unsafePathReason("a/../../x")).toMatch(/'\.\.'/);
    expect(unsafePathReason("/etc/passwd")).toBe("absolute path");
    expect(unsafePathReason("C:/x")).toBe("absolute path");
    expect(unsafePathReason("a\\b")).toBe("backslash in path");
    expect(unsafePathReason("a\0b")).toBe("NUL in path");
    expect(unsafePathReason("a//b")).toMatch(/empty/);
    expect(unsafePathReason("a/")).toMatch(/empty/);
    expect(unsafePathReason("")).toBe("empty path");
  });

  it("refuses a manifest that is not path → sha256, or that needs a file to be a folder", () => {
    expect(() => manifestEntries(null)).toThrow(TreeError);
    expect(() => manifestEntries([A])).toThrow(TreeError);
    expect(() => manifestEntries({ x: 5 })).toThrow(/is not a sha256/);
    expect(() => manifestEntries({ x: A.toUpperCase() })).toThrow(/is not a sha256/);
    expect(() => manifestEntries({ "a/b": A, a: B })).toThrow(/"a" is also a file/);
    expect(() => manifestEntries({ x: A, y: A, z: A }, { maxFiles: 2, maxBytes: 1 })).toThrow(/3 files, above the limit of 2/);
  });

  it("gives equal manifests one identity, whatever their key order, and different ones another", () => {
    expect(treeHash({ "a/x": A, b: B })).toBe(treeHash({ b: B, "a/x": A }));
    expect(treeHash({ "a/x": A, b: B })).not.toBe(treeHash({ "a/x": B, b: A }));
    expect(treeHash({ "a/x": A })).not.toBe(treeHash({ "a/y": A }));
    expect(manifestEntries({ b: B, a: A })).toEqual([["a", A], ["b", B]]);
  });
});
