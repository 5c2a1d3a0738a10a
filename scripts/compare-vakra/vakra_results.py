"""Writes VAKRA's own results files for a bundle that Agentboard scored, for comparing them with
`agentboard score --vakra-out` (test/fixtures/vakra-out/README.md). VAKRA's evaluator
(evaluator.py's evaluate_capability, its writer and resume reader) is imported from a checkout
given on the command line, never copied. No MCP server runs (VAKRA's path without an MCP
config), so the modules that only speak MCP are stubbed, as are tqdm and langchain_openai. Its
three judges are replaced by stand-ins that give Agentboard's verdict for the same stage and
turn, read from the run's `--out` results.json: the same verdicts on both sides, so any
difference left is in how the files are written.

With --resume, an output file that exists is left for VAKRA's resume reader (as when an
evaluation is run again): it reads the file, skips the domains it holds and rewrites it.

Usage: vakra_results.py [--resume] <vakra_checkout> <agentboard_results.json> <capability_key> <gt_root> <pred_root> <output> [<capability_key> <gt_root> <pred_root> <output> ...]
Run it from the folder the paths are relative to (VAKRA writes them as given)."""
import dataclasses, json, os, sys, types
from pathlib import Path

args = sys.argv[1:]
resume = args[:1] == ["--resume"]
if resume:
    args = args[1:]
vakra, results_file = args[:2]
runs = args[2:]
if not runs or len(runs) % 4:
    sys.exit(__doc__)


def stub(name, **attrs):
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    sys.modules[name] = module
    return module


placeholder = type("Placeholder", (), {"__init__": lambda self, *a, **kw: None})
stub("tqdm", tqdm=lambda iterable, **kw: iterable)
stub("langchain_openai", ChatOpenAI=placeholder)
stub("mcp", ClientSession=placeholder, StdioServerParameters=placeholder)
stub("mcp.client")
stub("mcp.client.stdio", stdio_client=placeholder)
stub("benchmark")
stub("benchmark.mcp_client", MCPConnectionConfig=placeholder, load_mcp_config=lambda path: {}, create_client_and_connect=placeholder)
sys.path.insert(0, os.path.join(vakra, "evaluator"))
os.environ.setdefault("API_KEY", "stand-in")
import evaluator  # noqa: E402
from utils import JudgeOutput  # noqa: E402

# Agentboard's verdicts by (capability folder key, domain, query of the scored turn, stage).
results = json.load(open(results_file, encoding="utf-8"))
verdicts = {}
for item in results["items"]:
    for trace in item.get("trace", []):
        for v in item["verdicts"]:
            if v["turnId"] == trace["turnId"]:
                verdicts[(item["domain"], trace["query"], v["stage"])] = v


class StandIn:
    def __init__(self, stage):
        self.stage = stage

    def judge(self, inp):
        v = verdicts.get((inp.domain, inp.query, self.stage))
        if v is None or v["outcome"] not in ("pass", "fail"):
            raise SystemExit(f"no Agentboard verdict for {self.stage} of {inp.domain} {inp.query!r}: the two scorers took different paths")
        return JudgeOutput(score=1 if v["outcome"] == "pass" else 0, explanation=v["detail"] if v["detail"] is not None else v["reason"])


registry = {
    key: dataclasses.replace(policy, exactmatch_judge=StandIn("exact"), correctness_judge=StandIn("correctness"), groundedness_judge=StandIn("groundedness"))
    for key, policy in evaluator.build_default_capability_registry().items()
}
for i in range(0, len(runs), 4):
    key, gt_root, pred_root, output = runs[i : i + 4]
    Path(output).parent.mkdir(parents=True, exist_ok=True)
    if Path(output).exists() and not resume:
        Path(output).unlink()  # a leftover file would be resumed, not rewritten
    evaluator.evaluate_capability(capability_name=key, gt_dir=Path(gt_root), pred_dir=Path(pred_root), out_path=Path(output), registry=registry, mcp_config=None)
