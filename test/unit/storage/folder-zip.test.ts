/** A folder bundle's download: the same ZIP every time, read back by the validator to the folder's own sha256. */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { zipToFile, type ZipSourceFile } from "../../../lib/storage/folder-zip";
import { openBundle } from "../../../lib/validate/bundle-source";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const temp = () => {
  const d = mkdtempSync(path.join(tmpdir(), "agentboard-folder-zip-"));
  dirs.push(d);
  return d;
};

function folder(files: Record<string, string | Buffer>): string {
  const root = temp();
  for (const [rel, data] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), data);
  }
  return root;
}

async function sourceFiles(root: string): Promise<{ files: ZipSourceFile[]; sha256: string }> {
  const opened = await openBundle(root);
  if (!opened.ok) throw new Error(JSON.stringify(opened.problems));
  return { files: opened.source.files.map((f) => ({ path: f.path, absPath: f.absPath! })), sha256: await opened.source.sha256() };
}

describe("zipToFile", () => {
  it("writes a ZIP that the validator reads back to the same files, and so to the folder's sha256", async () => {
    // Larger than a stream's chunk, and not so compressible that the validator takes it for a bomb.
    const big = randomBytes(3 * 1024 * 1024);
    const root = folder({ "capability_1_bi_apis/hockey.json": "[1, 2]", "capability_1_bi_apis/ü-ñame.json": "[]", "metadata.json": '{"agent_name":"a"}', "trial_2/big.bin": big, "empty.txt": "" });
    const { files, sha256 } = await sourceFiles(root);
    const zip = await zipToFile(files, path.join(temp(), "out", "bundle.zip"));
    const opened = await openBundle(zip);
    expect(opened.ok).toBe(true);
    if (!opened.ok) return;
    expect(opened.source.kind).toBe("zip");
    expect(opened.source.files.map((f) => f.path)).toEqual(files.map((f) => f.path));
    const unzipped = temp();
    for (const f of opened.source.files) {
      const bytes = await f.read();
      mkdirSync(path.dirname(path.join(unzipped, f.path)), { recursive: true });
      writeFileSync(path.join(unzipped, f.path), bytes);
    }
    await opened.source.close();
    expect(readFileSync(path.join(unzipped, "trial_2/big.bin")).equals(big)).toBe(true);
    expect((await sourceFiles(unzipped)).sha256).toBe(sha256);
  });

  it("is the same bytes whenever the files are (no timestamps), and a written file is kept", async () => {
    const root = folder({ "a/x.json": "[1]", "b.json": "{}" });
    const { files } = await sourceFiles(root);
    const one = readFileSync(await zipToFile(files, path.join(temp(), "one.zip")));
    utimesSync(path.join(root, "b.json"), new Date(2001, 1, 1), new Date(2001, 1, 1));
    const out = path.join(temp(), "two.zip");
    expect(readFileSync(await zipToFile(files, out)).equals(one)).toBe(true);
    // Concurrent calls share one write; a later call finds the file.
    const [a, b] = await Promise.all([zipToFile(files, out), zipToFile(files, out)]);
    expect(a).toBe(out);
    expect(b).toBe(out);
  });

  it("leaves no partial file when a file cannot be read", async () => {
    const dir = temp();
    const out = path.join(dir, "bad.zip");
    await expect(zipToFile([{ path: "gone.json", absPath: path.join(dir, "gone.json") }], out)).rejects.toThrow(/ENOENT/);
    expect(() => readFileSync(out)).toThrow(/ENOENT/);
    expect(readdirSync(dir)).toEqual([]);
  });
});
