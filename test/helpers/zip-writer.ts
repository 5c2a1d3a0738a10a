/**
 * A minimal ZIP writer for tests. Unlike a real archiver it writes whatever it is told,
 * so tests can build hostile archives: absolute or `..` entry names, symlink entries,
 * entries whose headers lie about their uncompressed size, deflate bombs.
 *
 * Layout: one local file header + data per entry, then the central directory, then the
 * end of central directory record. No data descriptors, no ZIP64, no encryption.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

export interface ZipEntrySpec {
  /** Entry name exactly as stored (no normalisation: `/abs`, `../x`, `C:\x` are kept). */
  name: string;
  /** File content; for a symlink, the link target. Ignored for directories. */
  data?: Buffer | string;
  /** Marks the entry as a Unix symbolic link (S_IFLNK in the external attributes). */
  symlink?: boolean;
  /** Marks the entry as a directory (name should end with `/`). */
  directory?: boolean;
  /** `deflate` (default) or `store`. */
  method?: "store" | "deflate";
  /** Uncompressed size written in both headers instead of the real one (to lie). */
  declaredSize?: number;
  /** Unix permission bits; default 0o644 for files, 0o755 for directories, 0o777 for links. */
  mode?: number;
  /** Already deflated bytes (from {@link deflateOnce}), reused as is: thousands of bomb entries cost one deflate. */
  deflated?: DeflatedData;
}

export interface DeflatedData {
  compressed: Buffer;
  size: number;
  crc: number;
}

/** Deflates `raw` once, for entries that share it. */
export function deflateOnce(raw: Buffer): DeflatedData {
  return { compressed: zlib.deflateRawSync(raw), size: raw.length, crc: zlib.crc32(raw) >>> 0 };
}

const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
/** Version made by: high byte 3 = Unix, low byte 20 = spec 2.0. */
const VERSION_MADE_BY = (3 << 8) | 20;
const VERSION_NEEDED = 20;
/** General purpose flag bit 11: names are UTF-8. */
const FLAG_UTF8 = 0x0800;
/** 2024-01-01 00:00:00 in MS-DOS format. */
const DOS_TIME = 0;
const DOS_DATE = ((2024 - 1980) << 9) | (1 << 5) | 1;

interface Prepared {
  nameBytes: Buffer;
  method: number;
  crc: number;
  compressed: Buffer;
  declaredSize: number;
  externalAttributes: number;
  offset: number;
}

/** Builds the archive bytes. */
export function buildZip(entries: readonly ZipEntrySpec[]): Buffer {
  const chunks: Buffer[] = [];
  const prepared: Prepared[] = [];
  let offset = 0;

  for (const e of entries) {
    const nameBytes = Buffer.from(e.name, "utf8");
    const raw = e.deflated ? Buffer.alloc(0) : e.directory ? Buffer.alloc(0) : typeof e.data === "string" ? Buffer.from(e.data, "utf8") : (e.data ?? Buffer.alloc(0));
    const deflate = e.deflated !== undefined || (!e.directory && !e.symlink && (e.method ?? "deflate") === "deflate");
    const compressed = e.deflated ? e.deflated.compressed : deflate ? zlib.deflateRawSync(raw) : raw;
    const type = e.symlink ? S_IFLNK : e.directory ? S_IFDIR : S_IFREG;
    const perms = e.mode ?? (e.symlink ? 0o777 : e.directory ? 0o755 : 0o644);
    // MS-DOS directory bit (0x10) in the low byte for directories.
    const externalAttributes = (((type | perms) << 16) | (e.directory ? 0x10 : 0)) >>> 0;
    const p: Prepared = {
      nameBytes,
      method: deflate ? 8 : 0,
      crc: e.deflated ? e.deflated.crc : zlib.crc32(raw) >>> 0,
      compressed,
      declaredSize: e.declaredSize ?? (e.deflated ? e.deflated.size : raw.length),
      externalAttributes,
      offset,
    };
    prepared.push(p);

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(VERSION_NEEDED, 4);
    local.writeUInt16LE(FLAG_UTF8, 6);
    local.writeUInt16LE(p.method, 8);
    local.writeUInt16LE(DOS_TIME, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(p.crc, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(p.declaredSize >>> 0, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    local.writeUInt16LE(0, 28);
    chunks.push(local, nameBytes, compressed);
    offset += local.length + nameBytes.length + compressed.length;
  }

  const cdStart = offset;
  for (const p of prepared) {
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(VERSION_MADE_BY, 4);
    central.writeUInt16LE(VERSION_NEEDED, 6);
    central.writeUInt16LE(FLAG_UTF8, 8);
    central.writeUInt16LE(p.method, 10);
    central.writeUInt16LE(DOS_TIME, 12);
    central.writeUInt16LE(DOS_DATE, 14);
    central.writeUInt32LE(p.crc, 16);
    central.writeUInt32LE(p.compressed.length, 20);
    central.writeUInt32LE(p.declaredSize >>> 0, 24);
    central.writeUInt16LE(p.nameBytes.length, 28);
    central.writeUInt16LE(0, 30); // extra field length
    central.writeUInt16LE(0, 32); // comment length
    central.writeUInt16LE(0, 34); // disk number start
    central.writeUInt16LE(0, 36); // internal attributes
    central.writeUInt32LE(p.externalAttributes, 38);
    central.writeUInt32LE(p.offset, 42);
    chunks.push(central, p.nameBytes);
    offset += central.length + p.nameBytes.length;
  }
  const cdSize = offset - cdStart;

  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(0, 4); // this disk
  eocd.writeUInt16LE(0, 6); // disk with the central directory
  eocd.writeUInt16LE(prepared.length, 8);
  eocd.writeUInt16LE(prepared.length, 10);
  eocd.writeUInt32LE(cdSize, 12);
  eocd.writeUInt32LE(cdStart, 16);
  eocd.writeUInt16LE(0, 20); // comment length
  chunks.push(eocd);
  return Buffer.concat(chunks);
}

/** Writes the archive to `file` and returns its bytes. */
export function writeZip(file: string, entries: readonly ZipEntrySpec[]): Buffer {
  const bytes = buildZip(entries);
  writeFileSync(file, bytes);
  return bytes;
}

/** A folder as a ZIP (deflated, names relative to it); `edit` may change a file's text on the way. */
export function zipFolder(dir: string, edit: (name: string, text: string) => string = (_, t) => t): Buffer {
  const entries: ZipEntrySpec[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d).sort()) {
      const p = path.join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else {
        const name = path.relative(dir, p).split(path.sep).join("/");
        entries.push({ name, data: edit(name, readFileSync(p, "utf8")) });
      }
    }
  };
  walk(dir);
  return buildZip(entries);
}
