/**
 * A submission bundle as a list of files, from a folder or a ZIP. ZIP entries are checked
 * for safety from the central directory before a single byte is inflated, and contents are
 * read into memory: nothing is ever extracted to disk.
 */
import { createHash } from "node:crypto";
import { createReadStream, readdirSync, readFileSync, statSync } from "node:fs";
import { lstat } from "node:fs/promises";
import path from "node:path";
import yauzl from "yauzl";
import type { Diagnostic } from "../formats/diagnostic";
import { firstUnsafeChar, UNSAFE_TEXT, UNSAFE_TEXT_EXPECTED } from "../formats/text-safety";
import { defaultValidationLimits, type ValidationLimits } from "./limits";

export interface BundleFile {
  /** POSIX path inside the bundle. */
  path: string;
  size: number;
  read(): Promise<Buffer>;
  /** A folder's file on disk (a worker thread reads it there); absent for ZIP entries. */
  absPath?: string;
  /**
   * A folder's file: the sha256 of its content, once read (by `read`, or by a worker thread
   * that read `absPath`), so the bundle's hash needs no second read of it.
   */
  sha256?: string;
}

export interface BundleSource {
  kind: "zip" | "folder";
  location: string;
  /**
   * sha256 of the ZIP file, or of the folder's sorted (path, content sha256) list. A folder's
   * files are hashed as they are read; the ones never read are hashed here.
   */
  sha256(): Promise<string>;
  files: BundleFile[];
  /**
   * The bundle's folders (POSIX paths, no trailing slash): a ZIP's directory entries, a
   * folder's subfolders. An empty one has no file to show it, and `trial_2/` must still count.
   */
  dirs: string[];
  close(): Promise<void>;
}

/** The bundle-level limits, checked before a byte is read (defaults and docs in limits.ts). */
export type ZipLimits = Pick<ValidationLimits, "maxEntries" | "maxTotalBytes" | "maxFileBytes" | "maxRatio" | "ratioMinCompressedBytes" | "maxPathBytes">;

export const defaultZipLimits: ZipLimits = {
  maxEntries: defaultValidationLimits.maxEntries,
  maxTotalBytes: defaultValidationLimits.maxTotalBytes,
  maxFileBytes: defaultValidationLimits.maxFileBytes,
  maxRatio: defaultValidationLimits.maxRatio,
  ratioMinCompressedBytes: defaultValidationLimits.ratioMinCompressedBytes,
  maxPathBytes: defaultValidationLimits.maxPathBytes,
};

export type OpenResult = { ok: true; source: BundleSource } | { ok: false; problems: Diagnostic[] };

export async function openBundle(location: string, limits: Partial<ZipLimits> = {}): Promise<OpenResult> {
  const info = await lstat(location).catch(() => undefined);
  const fail = (code: string, message: string): OpenResult => ({ ok: false, problems: [{ severity: "error", code, file: path.basename(location), message }] });
  if (!info) return fail("bundle_not_found", `bundle not found: ${location}`);
  const all = { ...defaultZipLimits, ...limits };
  if (info.isDirectory()) return openFolder(location, all);
  if (info.isFile()) {
    // Stored entries make an archive about as large as its contents, plus headers.
    const maxArchive = all.maxTotalBytes + 16 * 1024 ** 2;
    if (info.size > maxArchive) return fail("zip_too_large", `the archive is ${info.size} bytes; at most ${maxArchive} are allowed (limits.maxTotalBytes plus 16 MiB)`);
    return openZip(location, all);
  }
  return fail("bundle_not_file", "expected a folder or a .zip file");
}

/** A folder is held to the same limits as a ZIP, from fs.stat: nothing is read until they pass. */
async function openFolder(root: string, limits: ZipLimits): Promise<OpenResult> {
  const found: { abs: string; relPath: string; size: number }[] = [];
  const dirs: string[] = [];
  const problems: Diagnostic[] = [];
  const bad = (file: string, code: string, message: string) => problems.push({ severity: "error", code, file, message });
  let total = 0;
  let count = 0;
  async function walk(dir: string, rel: string): Promise<void> {
    // Synchronous listing and reads: one system call each, where a promise costs several
    // thread-pool round trips (a bundle of 250 small files is listed and read in a few ms).
    const entries = readdirSync(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (++count > limits.maxEntries) return;
      const abs = path.join(dir, e.name);
      const relPath = rel ? `${rel}/${e.name}` : e.name;
      const nameProblem = entryNameProblem(relPath, limits);
      if (nameProblem) bad(printable(relPath), "unsafe_path", nameProblem);
      else if (e.isSymbolicLink()) bad(relPath, "symlink", "symbolic links are not allowed in a bundle");
      else if (e.isDirectory()) {
        dirs.push(relPath);
        await walk(abs, relPath);
      }
      else if (e.isFile()) {
        const { size } = statSync(abs);
        total += size;
        if (size > limits.maxFileBytes) bad(relPath, "file_too_large", `file is ${size} bytes; at most ${limits.maxFileBytes} are allowed per file (limits.maxFileBytes)`);
        found.push({ abs, relPath, size });
      }
    }
  }
  await walk(root, "");
  const name = path.basename(root);
  if (count > limits.maxEntries) bad(name, "too_many_files", `the folder holds more than ${limits.maxEntries} files and folders; at most ${limits.maxEntries} are allowed (limits.maxEntries)`);
  if (total > limits.maxTotalBytes) bad(name, "bundle_too_large", `files total ${total} bytes; at most ${limits.maxTotalBytes} are allowed (limits.maxTotalBytes)`);
  if (problems.length) return { ok: false, problems };
  const files: BundleFile[] = found.map((f) => {
    const file: BundleFile = {
      path: f.relPath,
      size: f.size,
      absPath: f.abs,
      async read() {
        const bytes = readFileSync(f.abs);
        file.sha256 = createHash("sha256").update(bytes).digest("hex");
        return bytes;
      },
    };
    return file;
  });
  const sha256 = async () => {
    const lines: string[] = [];
    for (const f of files) lines.push(`${f.path}\0${(f.sha256 ??= await sha256File(f.absPath!))}\n`);
    return createHash("sha256").update(lines.join("")).digest("hex");
  };
  return { ok: true, source: { kind: "folder", location: root, sha256, files, dirs, close: async () => {} } };
}

/** A path of the bundle that is too long or holds characters no page or comment should show. */
function entryNameProblem(name: string, limits: ZipLimits): string | undefined {
  const bytes = Buffer.byteLength(name, "utf8");
  if (bytes > limits.maxPathBytes) return `path is ${bytes} bytes long; expected at most ${limits.maxPathBytes} (limits.maxPathBytes)`;
  const c = firstUnsafeChar(name);
  if (c) return `path holds ${c.codePoint} at index ${c.index}; ${UNSAFE_TEXT_EXPECTED}`;
  return undefined;
}

/** A name shown in a diagnostic: bounded, with refused characters replaced. */
function printable(name: string): string {
  const short = name.length > 200 ? `${name.slice(0, 200)}…` : name;
  return short.replace(new RegExp(UNSAFE_TEXT.source, "g"), "\uFFFD");
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
    bad(path.basename(file), "zip_too_many_entries", `ZIP holds ${zip.entryCount} entries; at most ${limits.maxEntries} are allowed (limits.maxEntries)`);
    return { ok: false, problems };
  }
  const entries: { name: string; entry: yauzl.Entry }[] = [];
  const dirs: string[] = [];
  let total = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on("error", reject);
      zip.on("end", () => resolve());
      zip.on("entry", (entry: yauzl.Entry) => {
        const name = nameDecoder.decode(entry.fileName as unknown as Buffer);
        const unsafe = unsafeEntryName(name);
        const nameProblem = unsafe ? undefined : entryNameProblem(name, limits);
        const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
        if (unsafe) bad(printable(name), "zip_unsafe_path", `${unsafe}; expected a relative path inside the bundle`);
        else if (nameProblem) bad(printable(name), "zip_unsafe_path", nameProblem);
        else if (mode === S_IFLNK) bad(name, "symlink", "symbolic links are not allowed in a bundle");
        else if ((entry.generalPurposeBitFlag & 1) !== 0) bad(name, "zip_encrypted", "encrypted entries are not supported");
        else if (name.endsWith("/")) dirs.push(name.slice(0, -1).replace(/\\/g, "/"));
        else {
          total += entry.uncompressedSize;
          // Every entry is held to the ratio; tiny entries count as ratioMinCompressedBytes.
          const ratio = entry.uncompressedSize / Math.max(1, entry.compressedSize);
          if (entry.uncompressedSize > limits.maxRatio * Math.max(1, entry.compressedSize, limits.ratioMinCompressedBytes)) {
            bad(name, "zip_bomb", `compression ratio ${Math.round(ratio)}:1 exceeds ${limits.maxRatio}:1 (${entry.uncompressedSize} bytes from ${entry.compressedSize})`);
          } else if (entry.uncompressedSize > limits.maxFileBytes) {
            bad(name, "zip_entry_too_large", `entry is ${entry.uncompressedSize} bytes uncompressed; at most ${limits.maxFileBytes} are allowed per file (limits.maxFileBytes)`);
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
    bad(path.basename(file), "zip_too_large", `entries total ${total} bytes uncompressed; at most ${limits.maxTotalBytes} are allowed (limits.maxTotalBytes)`);
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
  return { ok: true, source: { kind: "zip", location: file, sha256: async () => sha256, files, dirs, close: async () => zip.close() } };
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
