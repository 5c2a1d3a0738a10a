/** Node options for `next start`: a larger young generation, so a busy server pauses less for GC. */
export const SERVER_NODE_OPTIONS = "--max-semi-space-size=64";
