import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { tsconfigPaths: true },
  test: {
    environment: "node",
    include: ["test/**/*.test.ts"],
    // The CLI bundle, built from the current source: tests run the command a user runs.
    globalSetup: ["test/helpers/build-cli-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
