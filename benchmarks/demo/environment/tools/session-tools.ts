/** reset_session lets a replay give each dialogue a fresh state without restarting the server. */
import { defineTool, type ToolSpec } from "./tool-spec";

export const resetSessionTool: ToolSpec = defineTool({
  name: "reset_session",
  description: "Forget all server-side state of this session (data handles and loaded tables). Returns {reset: true, cleared}.",
  input: {},
  run: ({ session }) => {
    const cleared = session.tables.size;
    session.tables.clear();
    return { reset: true, cleared };
  },
});
