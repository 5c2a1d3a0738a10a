"""Scores a generated benchmark with VAKRA's own DialogueScorer (responses from the files,
no MCP) and the deterministic stand-in judge of judge-rule.md. VAKRA's code is imported from
a checkout given on the command line, never copied here; langchain_openai is replaced by a
stub because the judge never reaches a model.
Usage: vakra_scores.py <vakra_checkout> <data_dir> <out.json>"""
import glob, json, os, sys, types

vakra, root, out_file = sys.argv[1:4]
stub = types.ModuleType("langchain_openai")
stub.ChatOpenAI = type("ChatOpenAI", (), {"__init__": lambda self, **kw: None})
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


scorer = DialogueScorer(TurnScorer(TurnScorerConfig(capability="c", domain="d"), correctness_judge=RuleCorrectness(), groundedness_judge=RuleGroundedness(), exactmatch_judge=ExactMatchJudge()))
scores = {}
for gt_file in sorted(glob.glob(os.path.join(root, "bench", "groundtruth", "*", "*.json"))):
    capability = os.path.basename(os.path.dirname(gt_file))
    pred_file = os.path.join(root, "bundle", capability, os.path.basename(gt_file))
    predictions = {str(p["uuid"]): p for p in json.load(open(pred_file))}
    for gt in json.load(open(gt_file)):
        pred = predictions.get(str(gt["uuid"]))
        scores[f"{capability}|{gt['uuid']}"] = 0.0 if pred is None else scorer.score(gt, pred)[0]
json.dump(scores, open(out_file, "w"))
