/**
 * The record readers by scorer name (the same objects registry.ts's readers carry as
 * `records`), for worker threads, which must not load every reader to read a file.
 */
import type { ScorerName } from "../../benchmark/spec";
import type { RecordReader } from "./outputs-reader";
import { dialogueRecords } from "./dialogue-records";

const READERS: Partial<Record<ScorerName, RecordReader>> = { waterfall: dialogueRecords };

export function recordReaderOf(name: ScorerName): RecordReader {
  const reader = READERS[name];
  if (!reader) throw new Error(`the ${name} scorer reads its outputs files whole, not as records`);
  return reader;
}
