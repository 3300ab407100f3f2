"""Time reading, structural validation and Z3 repair of large synthetic RLTs.

Usage: python bench/rlt_structure_speed.py [N ...]   (default: 1000 10000 50000 nodes)
Prints one line per size, then one JSON object (the last line).
"""

from __future__ import annotations

import json
import random
import sys
import time

from peirce.engine.smt import repair_rlt
from peirce.engine.structure import check_structure
from peirce.evaluators.bench.rlt_corpus import synthetic_rlt
from peirce.translators.dot_rlt import read_rlt


def best(fn, runs: int = 3) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    times, out = [], None
    for _ in range(runs):
        started = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - started)
    return min(times), out


def main(sizes: list[int]) -> None:
    rows = []
    for n in sizes:
        text, _ = synthetic_rlt(random.Random(n), n_nodes=n)
        bad, injected = synthetic_rlt(random.Random(n), n_nodes=n, defects=["relabel"] * 20)
        read_s, rlt = best(lambda t=text: read_rlt(t), 1)
        check_s, report = best(lambda r=rlt: check_structure(r))
        bad_rlt = read_rlt(bad)
        repair_s, fix = best(lambda r=bad_rlt: repair_rlt(r), 1)
        row = {
            "nodes": len(rlt.argument.claims),  # type: ignore[attr-defined]
            "dot_bytes": len(text),
            "read_s": round(read_s, 3),
            "validate_s": round(check_s, 3),
            "valid": report.structurally_valid,  # type: ignore[attr-defined]
            "repair_s_20_defects": round(repair_s, 3),
            "relabelings": len(fix.relabelings),  # type: ignore[attr-defined]
        }
        rows.append(row)
        print(
            f"{row['nodes']:>7} nodes: read {row['read_s']} s, validate {row['validate_s']} s, "
            f"Z3 repair of {len(injected)} relabeled edges {row['repair_s_20_defects']} s"
        )
    print(json.dumps({"rlt_structure_speed": rows}))


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1000, 10000, 50000])
