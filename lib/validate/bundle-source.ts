/**
 * A submission bundle as a list of files, from a folder or a ZIP. ZIP entries are checked
 * for safety from the central directory before a single byte is inflated, and contents are
 * read into memory: nothing is ever extracted to disk.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { lstat, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import yauzl from "yauzl";
import type { Diagnostic } from "../formats/diagnostic";

export interface BundleFile {
  /** POSIX path inside the bundle. */
  path: string;
  size: number;
  read(): Promise<Buffer>;
}

export interface BundleSource {
  kind: "zip" | "folder";
  location: string;
  /** sha256 of the ZIP file, or of the folder's sorted (path, content sha256) list. */
  sha256: string;
  files: BundleFile[];
  close(): Promise<void>;
}

export interface ZipLimits {
  maxEntries: number;
  maxTotalBytes: number;
  /** Largest uncompressed/compressed ratio tolerated for entries above `ratioFloorBytes`. */
  maxRatio: number;
  ratioFloorBytes: number;
}

export const defaultZipLimits: ZipLimits = {
  maxEntries: 10_000,
  maxTotalBytes: 2 * 1024 ** 3,
  maxRatio: 200,
  ratioFloorBytes: 1024 ** 2,
};

export type OpenResult = { ok: true; source: BundleSource } | { ok: false; problems: Diagnostic[] };

export async function openBundle(location: string, limits: Partial<ZipLimits> = {}): Promise<OpenResult> {
  const info = await lstat(location).catch(() => undefined);
  const fail = (code: string, message: string): OpenResult => ({ ok: false, problems: [{ severity: "error", code, file: path.basename(location), message }] });
  if (!info) return fail("bundle_not_found", `bundle not found: ${location}`);
  if (info.isDirectory()) return openFolder(location);
  if (info.isFile()) return openZip(location, { ...defaultZipLimits, ...limits });
  return fail("bundle_not_file", "expected a folder or a .zip file");
}

async function openFolder(root: string): Promise<OpenResult> {
  const files: BundleFile[] = [];
  const problems: Diagnostic[] = [];
  const hashes: string[] = [];
  async function walk(dir: string, rel: string): Promise<void> {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const abs = path.join(dir, e.name);
      const relPath = rel ? `${rel}/${e.name}` : e.name;
      if (e.isSymbolicLink()) problems.push({ severity: "error", code: "symlink", file: relPath, message: "symbolic links are not allowed in a bundle" });
      else if (e.isDirectory()) await walk(abs, relPath);
      else if (e.isFile()) {
        const bytes = await readFile(abs);
        hashes.push(`${relPath}\0${createHash("sha256").update(bytes).digest("hex")}\n`);
        files.push({ path: relPath, size: bytes.length, read: () => readFile(abs) });
      }
    }
  }
  await walk(root, "");
  if (problems.length) return { ok: false, problems };
  const sha256 = createHash("sha256").update(hashes.join("")).digest("hex");
  return { ok: true, source: { kind: "folder", location: root, sha256, files, close: async () => {} } };
}

function sha256File(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash("sha256");
    createReadStream(file).on("data", (c) => h.update(c)).on("error", reject).on("end", () => resolve(h.digest("hex")));
  });
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const nameDecoder = new TextDecoder("utf-8");

/** Why an entry name is unsafe, or undefined. */
export function unsafeEntryName(name: string): string | undefined {
  if (name.includes("\0")) return "entry name contains a NUL byte";
  if (/^([/\\]|[A-Za-z]:)/.test(name)) return "absolute path";
  if (name.split(/[/\\]/).includes("..")) return 'path escapes the bundle with ".."';
  return undefined;
}

async function openZip(file: string, limits: ZipLimits): Promise<OpenResult> {
  const problems: Diagnostic[] = [];
  const bad = (entry: string, code: string, message: string) => problems.push({ severity: "error", code, file: entry, message });
  let zip: yauzl.ZipFile;
  try {
    zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
      yauzl.open(file, { lazyEntries: true, decodeStrings: false, autoClose: false, validateEntrySizes: true }, (err, z) => (err || !z ? reject(err) : resolve(z))),
    );
  } catch (err) {
    bad(path.basename(file), "zip_unreadable", `not a readable ZIP archive: ${err instanceof Error ? err.message : String(err)}`);
    return { ok: false, problems };
  }
  if (zip.entryCount > limits.maxEntries) {
    zip.close();
    bad(path.basename(file), "zip_too_many_entries", `ZIP holds ${zip.entryCount} entries; at most ${limits.maxEntries} are allowed`);
    return { ok: false, problems };
  }
  const entries: { name: string; entry: yauzl.Entry }[] = [];
  let total = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on("error", reject);
      zip.on("end", () => resolve());
      zip.on("entry", (entry: yauzl.Entry) => {
        const name = nameDecoder.decode(entry.fileName as unknown as Buffer);
        const unsafe = unsafeEntryName(name);
        const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
        if (unsafe) bad(name, "zip_unsafe_path", `${unsafe}; expected a relative path inside the bundle`);
        else if (mode === S_IFLNK) bad(name, "symlink", "symbolic links are not allowed in a bundle");
        else if ((entry.generalPurposeBitFlag & 1) !== 0) bad(name, "zip_encrypted", "encrypted entries are not supported");
        else if (!name.endsWith("/")) {
          total += entry.uncompressedSize;
          const ratio = entry.uncompressedSize / Math.max(1, entry.compressedSize);
          if (entry.uncompressedSize > limits.ratioFloorBytes && ratio > limits.maxRatio) {
            bad(name, "zip_bomb", `compression ratio ${Math.round(ratio)}:1 exceeds ${limits.maxRatio}:1 (${entry.uncompressedSize} bytes from ${entry.compressedSize})`);
          }
          entries.push({ name, entry });
        }
        zip.readEntry();
      });
      zip.readEntry();
    });
  } catch (err) {
    zip.close();
    bad(path.basename(file), "zip_unreadable", `corrupt ZIP archive: ${err instanceof Error ? err.message : String(err)}`);
    return { ok: false, problems };
  }
  if (total > limits.maxTotalBytes) {
    bad(path.basename(file), "zip_too_large", `entries total ${total} bytes uncompressed; at most ${limits.maxTotalBytes} are allowed`);
  }
  if (problems.length) {
    zip.close();
    return { ok: false, problems };
  }
  const files: BundleFile[] = entries.map(({ name, entry }) => ({
    path: name.replace(/\\/g, "/"),
    size: entry.uncompressedSize,
    read: () => readEntry(zip, entry),
  }));
  const sha256 = await sha256File(file);
  return { ok: true, source: { kind: "zip", location: file, sha256, files, close: async () => zip.close() } };
}

function readEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => {
      if (err || !stream) return reject(err ?? new Error("cannot read entry"));
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("error", reject);
      stream.on("end", () => resolve(Buffer.concat(chunks)));
    });
  });
}
