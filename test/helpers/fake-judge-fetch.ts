/**
 * An OpenAI-compatible chat endpoint as a `fetch` function (no server, no network), for tests
 * that need an LLM judge's real prompts and prompt hashes: it passes correctness and
 * groundedness verdicts, grades every score prompt 0.5, and maps each field a report's field
 * discovery asks about to no reference field (0.25). Its words ("half of the reference facts",
 * "no counterpart for <field>") are the private half of each grade.
 */
export const fakeJudgeFetch = (async (_url: string, init: { body: string }) => {
  const { messages } = JSON.parse(init.body) as { messages: { content: string }[] };
  const text = messages.map((m) => m.content).join("\n");
  let content: string;
  if (/line up fields/.test(text)) {
    const block = /name="actual_fields">\n([\s\S]*?)\n<\/data_/.exec(text)![1]!;
    content = JSON.stringify(Object.fromEntries(Object.keys(JSON.parse(block) as object).map((k) => [k, { reference_field: null, score: 0.25, reasoning: `no counterpart for ${k}` }])));
  } else if (/"verdict": "grounded"/.test(text)) content = JSON.stringify({ verdict: "grounded", reason: "the outputs state it" });
  else if (/"verdict": "correct"/.test(text)) content = JSON.stringify({ verdict: "correct", reason: "same values as the reference 42" });
  else content = JSON.stringify({ score: 0.5, reasoning: "half of the reference facts" });
  return new Response(JSON.stringify({ choices: [{ message: { role: "assistant", content } }] }), { status: 200, headers: { "content-type": "application/json" } });
}) as unknown as typeof fetch;

