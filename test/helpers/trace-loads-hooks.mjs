/** Module hooks of trace-loads.mjs: record each loaded URL, change nothing. */
import { appendFileSync } from "node:fs";

export async function load(url, context, next) {
  if (process.env.AGENTBOARD_TRACE_LOADS) appendFileSync(process.env.AGENTBOARD_TRACE_LOADS, `${url}\n`);
  return next(url, context);
}
