/**
 * The validation worker's entry for tests: registers tsx in the thread, then runs the
 * TypeScript source (lib/validate/validate-worker.ts); the built CLI runs its bundled .mjs.
 */
import { register } from "tsx/esm/api";

register();
await import("../../lib/validate/validate-worker.ts");
