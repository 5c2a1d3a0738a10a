/**
 * A stand-in OpenAI-compatible judge for the benchmark, run as its own process:
 * answers every chat completion after a fixed delay with a passing verdict; GET /stats
 * returns how many completions it served. Prints its port on stdout once listening.
 */
import { createServer } from "node:http";

const delayMs = Number(process.argv[2] ?? 50);
let served = 0;
const server = createServer((req, res) => {
  if (req.method === "GET" && req.url === "/stats") {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ served }));
    return;
  }
  req.resume();
  req.on("end", () => {
    setTimeout(() => {
      served++;
      const body = JSON.stringify({ choices: [{ index: 0, message: { role: "assistant", content: "Verdict: yes" }, finish_reason: "stop" }] });
      res.writeHead(200, { "content-type": "application/json" }).end(body);
    }, delayMs);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  const addr = server.address();
  process.stdout.write(`${typeof addr === "object" && addr ? addr.port : 0}\n`);
});
