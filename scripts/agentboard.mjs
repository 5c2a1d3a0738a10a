#!/usr/bin/env node
/**
 * The `agentboard` command (package.json "bin"; `npm run cli` runs it too). Runs the bundle
 * `npm install` built (dist/cli, scripts/build-cli.ts). When the bundle is missing, or any
 * source file it was built from has changed since (size and mtime first, the sha256 when they
 * differ), it runs scripts/cli.ts through tsx instead and says so: never stale code.
 */
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const root = path.resolve(import.meta.dirname, "..");
const dist = path.join(root, "dist/cli");

/** Why the bundle cannot be used, or null when it is current. */
function staleReason() {
  let build;
  try {
    build = JSON.parse(readFileSync(path.join(dist, "build.json"), "utf8"));
  } catch {
    return "dist/cli is not built yet";
  }
  for (const [rel, size, mtimeMs, sha256] of build.inputs) {
    const file = path.join(root, rel);
    let s;
    try {
      s = statSync(file);
    } catch {
      return `${rel}, which it was built from, is gone`;
    }
    if (s.size === size && s.mtimeMs === mtimeMs) continue;
    if (createHash("sha256").update(readFileSync(file)).digest("hex") !== sha256) return `${rel} changed since it was built`;
  }
  return null;
}

const reason = staleReason();
if (reason === null) {
  await import(pathToFileURL(path.join(dist, "cli.mjs")).href);
} else {
  process.stderr.write(`agentboard: running from source: ${reason} (\`npm run build:cli\` builds dist/cli)\n`);
  await import("tsx");
  await import(pathToFileURL(path.join(root, "scripts/cli.ts")).href);
}
