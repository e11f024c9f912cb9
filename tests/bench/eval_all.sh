#!/usr/bin/env bash
# Runs `quire eval` on every public set (each in a fresh QUIRE_HOME) and cross-checks the numbers
# with ../shared/eval/score.py on `quire search --queries … --json` output.
# EVAL (the sets' folder), SETS (which of them) and QUIRE (the command) can be set; PAGE=FILE
# also writes the numbers into that page's eval_all section (docs/benchmarks.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -n "${PAGE:-}" ]; then
  out=$(mktemp)
  PAGE= bash tests/bench/eval_all.sh | tee "$out"
  { echo '```'; cat "$out"; echo '```'; } | .venv/bin/python tests/bench/page.py "$PAGE" eval_all \
    "PAGE=$PAGE bash tests/bench/eval_all.sh"
  rm -f "$out"
  exit 0
fi
EVAL=${EVAL:-../shared/eval}
QUIRE=${QUIRE:-.venv/bin/quire}
SETS=${SETS:-xquad-en xquad-de ctkfacts-cs til-en}
for set in $SETS; do
  home=$(mktemp -d)
  echo "== $set"
  QUIRE_HOME=$home $QUIRE eval "$EVAL/$set" 2>/dev/null | grep -E "Hit@5|MRR"
  QUIRE_HOME=$home $QUIRE search --queries "$EVAL/$set/questions.jsonl" --json --no-gate > "$home/results.jsonl"
  python3 "$EVAL/score.py" "$EVAL/$set/questions.jsonl" "$home/results.jsonl" | grep -E "Hit@5|MRR" | sed 's/^/score.py /'
  rm -rf "$home"
done
