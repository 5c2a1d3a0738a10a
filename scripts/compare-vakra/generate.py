"""Writes a VAKRA-shaped benchmark (compat: vakra) and a bundle with varied shapes: numbers
written as floats or big integers, integer-like keys, None, escapes, nested answers, empty
answers, errored records, long evidence. Usage: generate.py <out_dir> [seed] [dialogues]
(dialogues: 1,600 unless given, spread over the two capabilities' two domains; the bench uses
5,187, VAKRA's size)."""
import json, random, os, shutil, sys
root = sys.argv[1]
random.seed(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
total = int(sys.argv[3]) if len(sys.argv) > 3 else 1600
shutil.rmtree(root, ignore_errors=True)
caps = ["capability_2_dashboard_apis", "capability_4_multiturn"]
os.makedirs(f"{root}/bench", exist_ok=True)
open(f"{root}/bench/benchmark.yaml", "w").write("""slug: sbs
title: SBS
version: "1"
compat: vakra
capabilities:
  - { id: c2, label: C2, directory: capability_2_dashboard_apis }
  - { id: c4, label: C4, directory: capability_4_multiturn }
""")
WORDS = ["heron", "Blue", "ada", "Bo", "cider", "x", "Harbor", "  spaced  out ", "tab\there", "it's", 'say "hi"', "a\xa0b", "z\u200bw", "l\u2028m", "日本", "café"]
def val(depth=0):
    k = random.random()
    if k < 0.12: return random.randint(-10**6, 10**6)
    if k < 0.2: return float(random.randint(0, 10**6))  # integral float
    if k < 0.26: return random.choice([2**53 + random.randint(1, 99), -(2**60) - 7, 10**20 + 1])
    if k < 0.34: return random.choice([-29742088339035.062, 1e16, 1e15, 0.00001, 0.0001, 3.14, 123456789012345680.0, 2.5])
    if k < 0.40: return None
    if k < 0.45: return random.choice([True, False])
    if k < 0.65 or depth > 2: return random.choice(WORDS)
    if k < 0.8: return [val(depth + 1) for _ in range(random.randint(0, 3))]
    keys = random.sample(["2", "1", "10", "name", "b", "a", "0"], random.randint(1, 4))
    return {kk: val(depth + 1) for kk in keys}
def variant(v):
    k = random.random()
    if k < 0.5: return v
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15: return int(v)
    if isinstance(v, int) and not isinstance(v, bool): return float(v) if abs(v) < 2**53 else v + 1
    if isinstance(v, dict): return dict(reversed(list(v.items())))
    if v is None: return random.choice(["", "None", None])
    if isinstance(v, str): return random.choice([v.upper(), v + " ", str([v])])
    if isinstance(v, list): return str(v) if random.random() < 0.5 else list(reversed(v))
    return v
def answer():
    k = random.random()
    if k < 0.25: return [[random.choice(WORDS + [None, 25.0, 3])] + [random.randint(0, 9)] for _ in range(random.randint(0, 3))]
    if k < 0.35: return [[[1.25]]]
    if k < 0.45: return ""
    if k < 0.5: return None
    if k < 0.6: return random.choice([25.0, 7, True])
    return " ".join(random.sample(WORDS, random.randint(1, 3)))
def pred_answer(ref):
    k = random.random()
    if k < 0.3: return ref if not isinstance(ref, str) else ref
    if k < 0.5 and isinstance(ref, str): return "The answer is " + ref
    if k < 0.6: return ""
    if k < 0.7: return None
    return " ".join(random.sample(WORDS, random.randint(1, 3)))
files = [(cap, dom) for cap in caps for dom in ["alpha", "beta"]]
for index, (cap, dom) in enumerate(files):
    gts, preds = [], []
    for i in range(total // len(files) + (index < total % len(files))):
        uuid = f"{cap[:12]}-{dom}-{i}"
        nt = 1 if cap.startswith("capability_2") else random.randint(1, 4)
        turns = []
        for t in range(nt):
            ncalls = random.randint(0, 4)
            resp = [val() for _ in range(ncalls)]
            if random.random() < 0.05 and ncalls: resp[0] = "Heron " + "filler " * 5000
            turns.append({"turn_id": t, "query": f"Q{t} about {random.choice(WORDS)}?", "answer": answer(), "sequence": {"tool_call": [{"name": f"get_{j}", "arguments": {"n": j}} for j in range(ncalls)], "tool_response": resp}})
        gts.append({"uuid": uuid, "domain": dom, "output": turns})
        if random.random() < 0.05: continue  # missing prediction
        last = turns[-1]
        presp = [variant(r) for r in last["sequence"]["tool_response"]]
        if random.random() < 0.3: presp = [val() for _ in range(random.randint(0, 2))] + presp
        if random.random() < 0.1: presp = presp + [val() for _ in range(20)]
        status = "error" if random.random() < 0.08 else "success"
        preds.append({"uuid": uuid, "domain": dom, "status": status, "error": "", "duration_s": 1.5, "output": [{"turn_id": last["turn_id"], "query": last["query"], "answer": pred_answer(last["answer"]), "sequence": {"tool_call": last["sequence"]["tool_call"], "tool_response": presp}}]})
    os.makedirs(f"{root}/bench/groundtruth/{cap}", exist_ok=True)
    os.makedirs(f"{root}/bundle/{cap}", exist_ok=True)
    json.dump(gts, open(f"{root}/bench/groundtruth/{cap}/{dom}.json", "w"))
    json.dump(preds, open(f"{root}/bundle/{cap}/{dom}.json", "w"))

