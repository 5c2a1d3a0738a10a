"""Compares per-dialogue scores: compare.py <vakra.json> <ours.json>"""
import json, sys
v = json.load(open(sys.argv[1])); o = json.load(open(sys.argv[2]))
diff = [k for k in v if abs(v[k] - o.get(k, -1)) > 1e-9]
print(f"{len(v)} dialogues, {len(diff)} differ")
for k in diff[:10]: print(f"  {k}: VAKRA {v[k]}, Agentboard {o.get(k)}")
sys.exit(1 if diff else 0)
