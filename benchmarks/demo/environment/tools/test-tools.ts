/** Tools for exercising a replay's failure handling; only exposed with DEMO_TEST_TOOLS=1. */
import { z } from "zod";
import { defineTool, ToolError, type ToolSpec } from "./tool-spec";

export const testTools: ToolSpec[] = [
  defineTool({
    name: "debug_sleep",
    description: "Test only: answer {slept: ms} after ms milliseconds (for timeout handling).",
    input: { ms: z.number().int().min(0) },
    run: async (_ctx, { ms }) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return { slept: ms };
    },
  }),
  defineTool({
    name: "debug_exit",
    description: "Test only: terminate the server process with this exit code in the middle of the call.",
    input: { code: z.number().int() },
    run: (_ctx, { code }) => process.exit(code),
  }),
  defineTool({
    name: "debug_fail",
    description: "Test only: return an error result with this message.",
    input: { message: z.string() },
    run: (_ctx, { message }) => {
      throw new ToolError(message);
    },
  }),
  defineTool({
    name: "debug_echo",
    description: "Test only: return the arguments as received (for argument coercion).",
    input: { value: z.number(), items: z.array(z.string()), label: z.string() },
    run: (_ctx, args) => ({ value: args.value, items: args.items, label: args.label }),
  }),
];
