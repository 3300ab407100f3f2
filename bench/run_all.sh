#!/usr/bin/env bash
# Run every benchmark whose data is present under the folder given as $1 (the generated ones,
# arche and claimtrees, always run). Each summary line is appended to $OUT with the benchmark's name.
set -uo pipefail
data=${1:?usage: bench/run_all.sh DATA_DIR}
peirce=${PEIRCE:-.venv/bin/peirce}
out=${OUT:-bench-results.jsonl}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
: > "$out"
failed=0
run() {
  local name=$1; shift
  echo "== $name"
  if ! "$peirce" bench "$name" "$@" | tee /dev/stderr | tail -n 1 \
      | sed "s/^{/{\"bench\": \"$name\", /" >> "$out"; then
    echo "!! $name failed" >&2
    failed=1
  fi
}
[ -f "$data/prontoqa/dev_even.json" ] && run prontoqa --data "$data/prontoqa/dev_even.json"
[ -f "$data/proofwriter/dev_even.json" ] && run proofwriter --data "$data/proofwriter/dev_even.json"
[ -f "$data/thoth/demo_rl.jsonl" ] && run scirecipe --data "$data/thoth/demo_rl.jsonl"
[ -d "$data/captaincook4d" ] && run captaincook --data "$data/captaincook4d"
run arche --data "$work/rlts" --generate 200
run claimtrees
[ -d "$data/ares/recipe_graphs" ] && run recipes --data "$data/ares/recipe_graphs"
[ -d "$data/ircot" ] && run logicscore --data "$data/ircot"
[ -d "$data/faithful" ] && run faithful --data "$data/faithful"
echo "summaries in $out"
exit $failed
