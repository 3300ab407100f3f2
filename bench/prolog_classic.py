"""Speed of the console's proof engine on classic Prolog programs, against SWI-Prolog itself.

Each program of a folder of classic programs (naive reverse, N-queens, the zebra puzzle,
SEND+MORE, Hanoi, a grammar, family relations, symbolic differentiation: by default the ones the
tests ship) is loaded as the console loads it, and each of its queries (``queries.json`` in the
folder: file name -> queries) asks for its first six answers, with proofs, at the console's
default limits (``Limits()``: 2,000,000 inferences, 5 s, depth 200; ``--inferences`` sets
another inference limit). The baseline is the
``swipl`` executable running the same programs and queries (first six answers, no proofs),
timed inside its own process; the same machine, the same run.

For each query: the seconds of both (the best of ``--repeat``, after one run to warm up), their
ratio, the inferences of both (peirce counts the program's inferences as SWI-Prolog does, see
``kb/control.pl``; SWI-Prolog's own count, less what its timing harness spends), and whether
peirce answered within the default limits.

    python bench/prolog_classic.py [--programs DIR] [--repeat 3]

A human summary, then one JSON object as the last line: ``queries``, ``complete`` (queries whose
search peirce completed or stopped after six answers within the default limits),
``complete_swipl`` (the same for ``swipl``, under its own 2,000,000 inferences),
``same_outcome`` (queries both completed or both stopped),
``seconds`` and ``seconds_swipl`` (totals), ``time_ratio`` (their quotient),
``time_ratio_complete`` (the same over the queries both completed: a search stopped by a
limit stops at different points), ``time_ratio_geomean`` (over the queries both completed, in
1 ms or more each), ``inferences`` and
``inferences_swipl`` (totals), and ``per_query`` (each query's figures).
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from peirce.engine.prolog import KnowledgeBase, Limits, parse_query
from peirce.engine.prolog.writer import last_inferences
from peirce.errors import PeirceError

ANSWERS = 6

_RUNNER = r"""
:- initialization(main, main).

main :-
    current_prolog_flag(argv, [Data, Repeat0]),
    atom_number(Repeat0, Repeat),
    read_file_to_terms(Data, Cases, []),
    run_query(user, true, 1, _, _, _),
    run_query(user, true, 1, Base, _, _),        % what the harness itself costs, warm
    forall(nth1(I, Cases, case(File, Queries)), run_case(I, File, Queries, Repeat, Base)).

run_case(I, File, Queries, Repeat, Base) :-
    format(atom(M), "p~d", [I]),
    load_files(M:File, [silent(true)]),
    forall(member(Q, Queries), time_query(M, Q, Repeat, Base)).

time_query(M, QText, Repeat, Base) :-
    term_string(Q, QText),
    run_query(M, Q, 1, _, _, _),                 % warm up (autoloading, indexes)
    findall(S-I-C, ( between(1, Repeat, _), run_query(M, Q, 1, I, S, C) ), Runs),
    msort(Runs, [Secs-Inf-Complete|_]),
    Net is max(0, Inf - Base),
    format("~q~n", [r(Secs, Net, Complete)]).

run_query(M, Q, _, Inf, Secs, Complete) :-
    statistics(inferences, I0),
    get_time(T0),
    findall(R, limit(6, catch(call_with_inference_limit(M:Q, 2000000, R), _, R = error)), Rs),
    get_time(T1),
    statistics(inferences, I1),
    Inf is I1 - I0,
    Secs is T1 - T0,
    (   ( memberchk(inference_limit_exceeded, Rs) ; memberchk(error, Rs) )
    ->  Complete = false
    ;   Complete = true
    ).
"""


def _quoted(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'"


def swipl_runs(
    swipl: str, programs: Path, queries: dict[str, list[str]], repeat: int
) -> list[tuple[float, int, bool]]:
    """(seconds, inferences, complete) of each query, in order, from ``swipl``."""
    with tempfile.TemporaryDirectory() as tmp:
        runner = Path(tmp) / "runner.pl"
        runner.write_text(_RUNNER, encoding="utf-8")
        data = Path(tmp) / "cases.data"
        with data.open("w", encoding="utf-8") as f:
            for name, qs in queries.items():
                listed = ", ".join(_quoted(q) for q in qs)
                f.write(f"case({_quoted(str(programs / name))}, [{listed}]).\n")
        done = subprocess.run(
            [swipl, "-q", "-f", "none", str(runner), str(data), str(repeat)],
            capture_output=True,
            text=True,
            timeout=3600,
            check=True,
        )
    out: list[tuple[float, int, bool]] = []
    for line in done.stdout.splitlines():
        if line.startswith("r("):
            secs, inf, complete = line.removeprefix("r(").removesuffix(")").split(",")
            out.append((float(secs), int(inf), complete == "true"))
    return out


def peirce_runs(
    programs: Path, queries: dict[str, list[str]], repeat: int, limits: Limits
) -> list[tuple[float, int, bool]]:
    """(seconds, inferences, complete) of each query, in order, from peirce's engine at the
    console's default limits."""
    out: list[tuple[float, int, bool]] = []
    for name, qs in queries.items():
        with KnowledgeBase(builtins=True, limits=limits) as kb:
            kb.control = True  # as the console sets it
            kb.load_program((programs / name).read_text(encoding="utf-8"))
            for q in qs:
                goals = parse_query(q)
                runs = []
                for _ in range(repeat + 1):  # the first run warms up
                    start = time.perf_counter()
                    try:
                        res = kb.query(goals, limit=ANSWERS)
                        done = res.complete or len(res.solutions) == ANSWERS
                    except PeirceError as exc:  # an error of the engine: not complete
                        print(f"{name} {q}: {exc}", file=sys.stderr)
                        done = False
                    runs.append((time.perf_counter() - start, _inferences(), done))
                out.append(min(runs[1:]))
    return out


def _inferences() -> int:
    """The last query's inferences, -1 from an engine that does not count them."""
    try:
        return last_inferences()
    except PeirceError:
        return -1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "prolog" / "classic"
    parser.add_argument("--programs", type=Path, default=default, help="folder of programs")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per query (best kept)")
    parser.add_argument(
        "--inferences",
        type=int,
        default=Limits().inferences,
        help="peirce's inference limit (default: the console's)",
    )
    args = parser.parse_args(argv)
    swipl = shutil.which("swipl")
    if swipl is None:
        print("the swipl executable is needed for the baseline", file=sys.stderr)
        return 2
    queries: dict[str, list[str]] = json.loads(
        (args.programs / "queries.json").read_text(encoding="utf-8")
    )
    names = [(name, q) for name, qs in queries.items() for q in qs]
    theirs = swipl_runs(swipl, args.programs, queries, args.repeat)
    ours = peirce_runs(args.programs, queries, args.repeat, Limits(inferences=args.inferences))
    if len(theirs) != len(names):
        print(f"swipl answered {len(theirs)} of {len(names)} queries", file=sys.stderr)
        return 1
    per_query = []
    logs = []
    both = [(o[0], t[0]) for o, t in zip(ours, theirs, strict=True) if o[2] and t[2]]
    print(
        f"{'query':48} {'peirce s':>9} {'swipl s':>9} {'ratio':>6} {'peirce inf':>11} "
        f"{'swipl inf':>10}"
    )
    for (name, q), (s, i, c), (ts, ti, tc) in zip(names, ours, theirs, strict=True):
        ratio = s / ts if ts > 0 else None
        if ts >= 0.001 and s >= 0.001 and c and tc:
            logs.append(math.log(s / ts))
        per_query.append(
            {
                "program": name,
                "query": q,
                "seconds": s,
                "seconds_swipl": ts,
                "ratio": ratio,
                "inferences": i,
                "inferences_swipl": ti,
                "complete": c,
                "complete_swipl": tc,
            }
        )
        shown = f"{ratio:6.1f}" if ratio is not None else "     -"
        flag = "" if c else "  (stopped by a limit)"
        print(f"{(name + ' ' + q)[:48]:48} {s:9.4f} {ts:9.4f} {shown} {i:11,} {ti:10,}{flag}")
    total, total_swipl = sum(r[0] for r in ours), sum(r[0] for r in theirs)
    summary = {
        "queries": len(names),
        "complete": sum(r[2] for r in ours),
        "complete_swipl": sum(r[2] for r in theirs),
        "same_outcome": sum(a[2] == b[2] for a, b in zip(ours, theirs, strict=True)),
        "seconds": total,
        "seconds_swipl": total_swipl,
        "time_ratio": total / total_swipl if total_swipl else None,
        "time_ratio_complete": sum(o for o, _ in both) / sum(t for _, t in both) if both else None,
        "time_ratio_geomean": math.exp(sum(logs) / len(logs)) if logs else None,
        "inferences": sum(r[1] for r in ours),
        "inferences_swipl": sum(r[1] for r in theirs),
        "per_query": per_query,
    }
    print(
        f"{summary['complete']} of {len(names)} queries complete at the default limits "
        f"(swipl: {summary['complete_swipl']}); {total:.3f} s against swipl's "
        f"{total_swipl:.3f} s (x{summary['time_ratio']:.1f}; on the queries both completed "
        f"x{summary['time_ratio_complete'] or 0:.1f}, geometric mean of those of 1 ms or more "
        f"x{summary['time_ratio_geomean'] or 0:.1f}); inferences "
        f"{summary['inferences']:,} against {summary['inferences_swipl']:,}"
    )
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
