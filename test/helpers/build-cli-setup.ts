/**
 * vitest's global setup: builds the CLI bundle (scripts/build-cli.ts) once before the tests,
 * so tests that run `agentboard` run the built command a user runs, from the current source.
 */
import { buildCli } from "../../scripts/build-cli";

export default async function setup(): Promise<void> {
  await buildCli();
}
