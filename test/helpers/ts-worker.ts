/**
 * A worker thread entry that runs TypeScript source under test: registers tsx in the thread,
 * then imports the module (the built CLI starts the bundled .mjs instead).
 */
import path from "node:path";
import { pathToFileURL } from "node:url";

const REPO = path.resolve(import.meta.dirname, "../..");

/** `new Worker(tsWorker("lib/validate/validate-worker.ts"))`. */
export function tsWorker(source: string): URL {
  const tsx = pathToFileURL(path.join(REPO, "node_modules/tsx/dist/esm/api/index.mjs")).href;
  const entry = pathToFileURL(path.join(REPO, source)).href;
  return new URL(`data:text/javascript,${encodeURIComponent(`const { register } = await import(${JSON.stringify(tsx)}); register(); await import(${JSON.stringify(entry)});`)}`);
}
