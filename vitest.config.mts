import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { tsconfigPaths: true },
  test: {
    environment: "node",
    include: ["test/**/*.test.ts"],
    // The CLI bundle, built from the current source: tests run the command a user runs.
    globalSetup: ["test/helpers/build-cli-setup.ts"],
    // Two test files at a time, whatever the cores: most of a browser or worker test is spent
    // waiting on the processes it started, and one at a time left the suite near 30 minutes.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
