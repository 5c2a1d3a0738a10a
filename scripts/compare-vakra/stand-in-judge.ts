/**
 * The stand-in judge as an OpenAI-compatible endpoint on 127.0.0.1, for runs that judge over
 * HTTP as users run them: `agentboard score --judge openai --judge-base-url <url>` and VAKRA's
 * own judges (vakra_scores.py --judge-url). Both sides pay for a request each, and neither pays
 * for the judging itself: this server runs in the bench's own process.
 *
 * The rule is vakra_scores.py's: correct when the normalised reference is a substring of the
 * normalised prediction; grounded when every word of the response is in the document (the
 * query, then the responses). The texts are read back from whichever prompt arrived: VAKRA's
 * (its tags) or Agentboard's (data blocks), and answered in the shape that side's parser reads.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface StandInJudge {
  /** Pass as `--judge-base-url` (and to vakra_scores.py, which adds VAKRA's `/v1`). */
  readonly baseUrl: string;
  /** Requests answered since the last `reset()`, by the prompt's side. */
  readonly counts: { agentboard: number; vakra: number };
  reset(): void;
  close(): Promise<void>;
}

interface Message {
  role: string;
  content: string;
}

function between(text: string, start: string, end: string): string {
  const i = text.indexOf(start);
  if (i < 0) throw new Error(`no ${JSON.stringify(start)} in the prompt`);
  const from = i + start.length;
  const to = text.indexOf(end, from);
  if (to < 0) throw new Error(`no ${JSON.stringify(end)} in the prompt`);
  return text.slice(from, to);
}

const grounded = (response: string, doc: string) => response.split(/\s+/).filter(Boolean).every((word) => doc.includes(word));

/** VAKRA's prompts (evaluator/prompt.py): one user message; its parsers want JSON or a first-line label. */
function answerVakra(prompt: string): string {
  if (prompt.includes("<prediction>")) {
    const ok = between(prompt, "<prediction>\n", "\n</prediction>").includes(between(prompt, "<answer>\n", "\n</answer>"));
    return JSON.stringify({ score: ok ? 1 : 0, explanation: "rule" });
  }
  return `${grounded(between(prompt, "<response>\n", "\n</response>"), between(prompt, "<doc> \n", "\n</doc>")) ? "yes" : "no"}\nrule`;
}

/** Agentboard's prompts (lib/judges/prompts.ts): values in data blocks named by a nonce. */
function answerAgentboard(system: string, user: string): string {
  const nonce = /data_([0-9a-f]{16})/.exec(system)![1]!;
  const block = (name: string) => between(user, `<data_${nonce} name="${name}">\n`, `\n</data_${nonce}>`);
  if (user.includes(`name="reference"`)) return JSON.stringify({ verdict: block("answer").includes(block("reference")) ? "correct" : "incorrect", reason: "rule" });
  // Evidence is numbered "[1] …" a line each (responses are normalised: no line breaks inside).
  const numbered = block("evidence");
  const evidence = numbered === "(no tool output)" ? [] : numbered.split("\n").map((line) => line.replace(/^\[\d+\] /, ""));
  return JSON.stringify({ verdict: grounded(block("answer"), `QUERY: ${block("question")} ${evidence.join(" ")}`) ? "grounded" : "ungrounded", reason: "rule" });
}

export async function startStandInJudge(): Promise<StandInJudge> {
  const counts = { agentboard: 0, vakra: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let content: string;
      try {
        const messages = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { messages: Message[] }).messages;
        const system = messages.find((m) => m.role === "system")?.content ?? "";
        const user = messages.filter((m) => m.role === "user").at(-1)!.content;
        if (system.includes("data_")) {
          counts.agentboard++;
          content = answerAgentboard(system, user);
        } else {
          counts.vakra++;
          content = answerVakra(user);
        }
      } catch (err) {
        res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: String(err) } }));
        return;
      }
      const body = JSON.stringify({ id: "stand-in", object: "chat.completion", created: 0, model: "stand-in", choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }], usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } });
      res.writeHead(200, { "content-type": "application/json" }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    counts,
    reset() {
      counts.agentboard = 0;
      counts.vakra = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
