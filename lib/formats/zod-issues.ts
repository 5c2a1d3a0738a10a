/** A zod error as one line per issue, each naming its key: how every schema error of ours reads. */
import type { z } from "zod";

/** `capabilities[1].scoredTurns: Invalid option: expected one of "last"|"all"` */
export function formatZodIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const key = issue.path.reduce<string>(
      (acc, seg) => (typeof seg === "number" ? `${acc}[${seg}]` : acc ? `${acc}.${String(seg)}` : String(seg)),
      "",
    );
    return `${key || "(top level)"}: ${issue.message}`;
  });
}
