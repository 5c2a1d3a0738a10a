"""Scores a generated benchmark with VAKRA's own DialogueScorer (responses from the files,
no MCP) and the deterministic stand-in judge of judge-rule.md. VAKRA's code is imported from
a checkout given on the command line, never copied here; langchain_openai is replaced by a
stub because the judge never reaches a model.

With --judge-url, VAKRA's own judges run unchanged (its prompts and reply parsers) and ask the
stand-in judge served at that URL (stand-in-judge.ts, what `npm run bench:score` starts), as
Agentboard's openai judge does: both sides pay for a request each. langchain_openai is then a
small client on http.client with one kept-alive connection, lighter than langchain itself
(which is not installed here), so VAKRA's side is measured at less than its real cost.
Usage: vakra_scores.py [--judge-url <url>] <vakra_checkout> <data_dir> <out.json>"""
import glob, http.client, json, os, sys, types, urllib.parse

args = sys.argv[1:]
judge_url = None
if args[:1] == ["--judge-url"]:
    judge_url, args = args[1], args[2:]
vakra, root, out_file = args[:3]


class Reply:
    def __init__(self, content):
        self.content = content


class HttpChatOpenAI:
    """What VAKRA's ChatModel uses of langchain's ChatOpenAI: base_url, model, invoke(prompt).content."""

    def __init__(self, **kw):
        self.model, self.temperature = kw.get("model"), kw.get("temperature", 0)
        url = urllib.parse.urlsplit(kw["base_url"])
        self.path = url.path.rstrip("/") + "/chat/completions"
        self.connection = http.client.HTTPConnection(url.hostname, url.port)

    def invoke(self, prompt):
        body = json.dumps({"model": self.model, "temperature": self.temperature, "messages": [{"role": "user", "content": prompt}]})
        self.connection.request("POST", self.path, body, {"content-type": "application/json", "authorization": "Bearer " + os.environ["API_KEY"]})
        response = self.connection.getresponse()
        data = response.read()
        if response.status != 200:
            raise RuntimeError(f"judge answered {response.status}: {data[:200]!r}")
        return Reply(json.loads(data)["choices"][0]["message"]["content"])


stub = types.ModuleType("langchain_openai")
stub.ChatOpenAI = HttpChatOpenAI if judge_url else type("ChatOpenAI", (), {"__init__": lambda self, **kw: None})
sys.modules["langchain_openai"] = stub
sys.path.insert(0, os.path.join(vakra, "evaluator"))
os.environ.setdefault("API_KEY", "stand-in")
from judge import CorrectnessJudge, ExactMatchJudge, GroundednessJudge  # noqa: E402
from scorer import DialogueScorer, TurnScorer, TurnScorerConfig  # noqa: E402


def between(text, start, end):
    i = text.index(start) + len(start)
    return text[i:text.index(end, i)]


class RuleCorrectness(CorrectnessJudge):
    def invoke(self, prompt):
        reference = between(prompt, "<answer>\n", "\n</answer>")
        prediction = between(prompt, "<prediction>\n", "\n</prediction>")
        return json.dumps({"score": 1 if reference in prediction else 0, "explanation": "rule"})


class RuleGroundedness(GroundednessJudge):
    def invoke(self, prompt):
        doc = between(prompt, "<doc> \n", "\n</doc>")
        response = between(prompt, "<response>\n", "\n</response>")
        return ("yes" if all(token in doc for token in response.split()) else "no") + "\nrule"


if judge_url:
    config = {"end_point": judge_url, "model_name": "stand-in"}
    judges = {"correctness_judge": CorrectnessJudge(config), "groundedness_judge": GroundednessJudge(config)}
else:
    judges = {"correctness_judge": RuleCorrectness(), "groundedness_judge": RuleGroundedness()}
scorer = DialogueScorer(TurnScorer(TurnScorerConfig(capability="c", domain="d"), exactmatch_judge=ExactMatchJudge(), **judges))
scores = {}
for gt_file in sorted(glob.glob(os.path.join(root, "bench", "groundtruth", "*", "*.json"))):
    capability = os.path.basename(os.path.dirname(gt_file))
    pred_file = os.path.join(root, "bundle", capability, os.path.basename(gt_file))
    predictions = {str(p["uuid"]): p for p in json.load(open(pred_file))}
    for gt in json.load(open(gt_file)):
        pred = predictions.get(str(gt["uuid"]))
        scores[f"{capability}|{gt['uuid']}"] = 0.0 if pred is None else scorer.score(gt, pred)[0]
json.dump(scores, open(out_file, "w"))
