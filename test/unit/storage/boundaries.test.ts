/**
 * lib/storage's boundaries: it reads no process state (the scripts pass settings in, env.ts turns
 * an environment they hand over into options), and only s3-store.ts touches the AWS SDK, loading
 * it at first use so that a process on the local folder never imports it.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const dir = path.resolve(import.meta.dirname, "../../../lib/storage");
const sources = readdirSync(dir).filter((f) => f.endsWith(".ts")).map((f) => ({ name: f, text: readFileSync(path.join(dir, f), "utf8") }));

describe("lib/storage boundaries", () => {
  it("reads no process.env", () => {
    expect(sources.length).toBeGreaterThan(5);
    expect(sources.filter((s) => /process\.env/.test(s.text)).map((s) => s.name)).toEqual([]);
  });

  it("imports the AWS SDK only in s3-store.ts, and there only lazily", () => {
    expect(sources.filter((s) => /@aws-sdk\//.test(s.text)).map((s) => s.name)).toEqual(["s3-store.ts"]);
    const s3 = sources.find((s) => s.name === "s3-store.ts")?.text ?? "";
    expect(s3.match(/^import .*@aws-sdk.*$/gm)).toEqual(['import type { S3Client } from "@aws-sdk/client-s3";']);
    expect(s3).toContain('import("@aws-sdk/client-s3")');
  });
});
