#!/usr/bin/env bash
# Run every benchmark whose data is present under the folder given as $1.
set -uo pipefail
data=${1:?usage: bench/run_all.sh DATA_DIR}
peirce=${PEIRCE:-.venv/bin/peirce}
out=${OUT:-bench-results.jsonl}
: > "$out"
run() {
  local name=$1; shift
  echo "== $name"
  "$peirce" bench "$name" "$@" | tee /dev/stderr | tail -n 1 | sed "s/^{/{\"bench\": \"$name\", /" >> "$out"
}
[ -f "$data/prontoqa/dev_even.json" ] && run prontoqa --data "$data/prontoqa/dev_even.json"
[ -f "$data/proofwriter/dev_even.json" ] && run proofwriter --data "$data/proofwriter/dev_even.json"
echo "summaries in $out"
