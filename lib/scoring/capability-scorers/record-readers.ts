/**
 * The record readers by scorer name (the same objects registry.ts's scorers carry as
 * `records`), for worker threads, which must not load every scorer to read a file.
 */
import type { ScorerName } from "../item-result";
import type { RecordReader } from "./capability-scorer";
import { dialogueRecords } from "./dialogue-records";

const READERS: Partial<Record<ScorerName, RecordReader>> = { waterfall: dialogueRecords };

export function recordReaderOf(name: ScorerName): RecordReader {
  const reader = READERS[name];
  if (!reader) throw new Error(`the ${name} scorer reads its outputs files whole, not as records`);
  return reader;
}
