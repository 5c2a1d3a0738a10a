#!/usr/bin/env bash
# Side by side: VAKRA's own scorer and Agentboard's compat: vakra on generated data.
# Usage: scripts/compare-vakra/run.sh <vakra_checkout> [seed ...]   (prints "N dialogues, M differ" per seed)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
vakra="$1"; shift
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
status=0
for seed in "${@:-1}"; do
  python3 "$here/generate.py" "$work/data" "$seed"
  python3 "$here/vakra_scores.py" "$vakra" "$work/data" "$work/vakra.json"
  (cd "$here/../.." && npx tsx "$here/agentboard-scores.mts" "$work/data" "$work/agentboard.json")
  echo -n "seed $seed: "; python3 "$here/compare.py" "$work/vakra.json" "$work/agentboard.json" || status=1
done
exit $status
