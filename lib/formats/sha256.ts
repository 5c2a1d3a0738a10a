/** The hex sha256 of bytes or text: what bundles, benchmark files, prompts and cache keys are named by. */
import { createHash } from "node:crypto";

export const sha256 = (bytes: Uint8Array | string): string => createHash("sha256").update(bytes).digest("hex");
