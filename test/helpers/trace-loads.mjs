/**
 * `node --import test/helpers/trace-loads.mjs …`: appends the URL of every module the process
 * loads to the file named by AGENTBOARD_TRACE_LOADS (to check what a command loads).
 */
import { register } from "node:module";

register("./trace-loads-hooks.mjs", import.meta.url);
