/**
 * A folder's files as one ZIP, written the same way every time: entries in the order given
 * (the caller sorts them), no timestamps (1980-01-01), deflated, sizes and CRC in a data
 * descriptor after each entry, so a file is streamed once and never held whole. No ZIP64: at
 * most 65,535 entries and 4 GiB in all, far above the bundle limits (limits.ts).
 */
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";
import { partName } from "./verified-file";

export interface ZipSourceFile {
  /** The entry's name: a POSIX path inside the archive. */
  path: string;
  /** Where its bytes are. */
  absPath: string;
}

const MAX_ENTRIES = 0xffff;
const MAX_OFFSET = 0xffffffff;
// General purpose flags: bit 3 (sizes in a data descriptor), bit 11 (UTF-8 names).
const FLAGS = 0x0808;
const DEFLATE = 8;
const DOS_DATE_1980 = 0x0021;
// Made by Unix (3), spec 2.0; regular files with mode 0644.
const MADE_BY = 0x0314;
const FILE_ATTRS = (0o100644 << 16) >>> 0;

export class FolderZipError extends Error {
  override readonly name = "FolderZipError";
}

function localHeader(name: Buffer): Buffer {
  const h = Buffer.alloc(30);
  h.writeUInt32LE(0x04034b50, 0);
  h.writeUInt16LE(20, 4);
  h.writeUInt16LE(FLAGS, 6);
  h.writeUInt16LE(DEFLATE, 8);
  h.writeUInt16LE(0, 10);
  h.writeUInt16LE(DOS_DATE_1980, 12);
  // CRC and sizes follow the data (descriptor); zero here.
  h.writeUInt16LE(name.length, 26);
  return Buffer.concat([h, name]);
}

function descriptor(crc: number, compressed: number, size: number): Buffer {
  const d = Buffer.alloc(16);
  d.writeUInt32LE(0x08074b50, 0);
  d.writeUInt32LE(crc >>> 0, 4);
  d.writeUInt32LE(compressed, 8);
  d.writeUInt32LE(size, 12);
  return d;
}

interface Written {
  name: Buffer;
  crc: number;
  compressed: number;
  size: number;
  offset: number;
}

function centralHeader(e: Written): Buffer {
  const h = Buffer.alloc(46);
  h.writeUInt32LE(0x02014b50, 0);
  h.writeUInt16LE(MADE_BY, 4);
  h.writeUInt16LE(20, 6);
  h.writeUInt16LE(FLAGS, 8);
  h.writeUInt16LE(DEFLATE, 10);
  h.writeUInt16LE(0, 12);
  h.writeUInt16LE(DOS_DATE_1980, 14);
  h.writeUInt32LE(e.crc >>> 0, 16);
  h.writeUInt32LE(e.compressed, 20);
  h.writeUInt32LE(e.size, 24);
  h.writeUInt16LE(e.name.length, 28);
  h.writeUInt32LE(FILE_ATTRS, 38);
  h.writeUInt32LE(e.offset, 42);
  return Buffer.concat([h, e.name]);
}

function endOfCentralDirectory(entries: number, size: number, offset: number): Buffer {
  const e = Buffer.alloc(22);
  e.writeUInt32LE(0x06054b50, 0);
  e.writeUInt16LE(entries, 8);
  e.writeUInt16LE(entries, 10);
  e.writeUInt32LE(size, 12);
  e.writeUInt32LE(offset, 16);
  return e;
}

async function* zipChunks(files: readonly ZipSourceFile[]): AsyncGenerator<Buffer> {
  if (files.length > MAX_ENTRIES) throw new FolderZipError(`${files.length} files: a ZIP of a folder holds at most ${MAX_ENTRIES}`);
  const written: Written[] = [];
  let offset = 0;
  const room = (n: number) => {
    if (offset + n > MAX_OFFSET) throw new FolderZipError("the folder is over 4 GiB: too large for a ZIP without ZIP64");
  };
  for (const f of files) {
    const name = Buffer.from(f.path, "utf8");
    const header = localHeader(name);
    const at = offset;
    room(header.length);
    offset += header.length;
    yield header;
    let crc = 0;
    let size = 0;
    let compressed = 0;
    const deflate = zlib.createDeflateRaw({ level: 6 });
    const source = createReadStream(f.absPath);
    source.on("data", (chunk) => {
      const b = chunk as Buffer;
      crc = zlib.crc32(b, crc);
      size += b.length;
    });
    source.on("error", (err) => deflate.destroy(err));
    source.pipe(deflate);
    try {
      for await (const chunk of deflate) {
        const b = chunk as Buffer;
        compressed += b.length;
        room(b.length);
        offset += b.length;
        yield b;
      }
    } finally {
      // A reader that stops early (a download cut off) leaves no file open.
      source.destroy();
    }
    if (size > MAX_OFFSET) throw new FolderZipError(`${f.path} is over 4 GiB`);
    const d = descriptor(crc, compressed, size);
    room(d.length);
    offset += d.length;
    yield d;
    written.push({ name, crc, compressed, size, offset: at });
  }
  const start = offset;
  let size = 0;
  for (const e of written) {
    const h = centralHeader(e);
    size += h.length;
    yield h;
  }
  room(size);
  yield endOfCentralDirectory(written.length, size, start);
}

/** The ZIP of `files` as a stream. */
export function zipStream(files: readonly ZipSourceFile[]): Readable {
  return Readable.from(zipChunks(files), { objectMode: false });
}

// Per process by nature: the archives being written, keyed by destination file.
const inFlight = new Map<string, Promise<string>>();

/**
 * `file` holding the ZIP of `files`, written once (a partial file never takes the name: it is
 * written beside it and renamed); later calls find it there. Concurrent calls for one file in
 * this process share one write.
 */
export function zipToFile(files: readonly ZipSourceFile[], file: string): Promise<string> {
  let p = inFlight.get(file);
  if (!p) {
    p = writeOnce(files, file).finally(() => inFlight.delete(file));
    inFlight.set(file, p);
  }
  return p;
}

async function writeOnce(files: readonly ZipSourceFile[], file: string): Promise<string> {
  const done = await stat(file).catch(() => null);
  if (done?.isFile()) return file;
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = partName(file);
  try {
    await pipeline(zipStream(files), createWriteStream(tmp));
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  return file;
}
