/**
 * The engine's layers, lowest first: a module imports from its own folder and the folders
 * before it, never from one after it (layers.test.ts checks every import). The line beside each
 * says what it owns and why it sits where it does.
 */
export const ENGINE_LAYERS: readonly { folder: string; why: string }[] = [
  { folder: "lib/formats", why: "file shapes and tolerant readers (VAKRA, NAT), canonical JSON: the words every layer speaks; it needs none of them" },
  { folder: "lib/judges", why: "the grader port, its one factory and its graders (rules, literal, openai, verdicts): judging needs only the formats" },
  { folder: "lib/evaluators", why: "NAT's qa, trajectory and report evaluators, built from an eval config and graded through the judges" },
  { folder: "lib/benchmark", why: "benchmark.yaml and its ground truth, loaded per capability kind; loading builds an evaluator capability's evaluator" },
  { folder: "lib/validate", why: "a bundle checked against a loaded benchmark: ZIP safety, layout, outputs read per capability kind, coverage, report" },
  { folder: "lib/replay", why: "the agent's tool calls replayed against the benchmark's environment, for the responses scoring compares" },
  { folder: "lib/scoring", why: "each item scored from its validated, replayed prediction: the waterfall, the capability scorers, item results, manifest" },
  { folder: "lib/aggregate", why: "item results into capability and overall scores, intervals, ranks and cost; score-bundle, the entry point, calls every layer below" },
];

/** The lib folders outside the engine: they may use it, it never uses them. */
export const OUTSIDE_ENGINE = ["lib/storage", "lib/github", "lib/queries", "lib/submissions"];

/** Packages the engine never imports: the web framework, the database drivers, GitHub's client. */
export const FORBIDDEN_PACKAGES = /^(next|react|react-dom|server-only|drizzle-orm|better-sqlite3|pg|octokit|@octokit\/[^/]+)(\/|$)/;
