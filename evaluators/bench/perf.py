"""Performance against native floors: every hot path beside its floor, run in the same process run.

``peirce bench perf --data DIR`` (``DIR`` laid out like the data folder: ``prontoqa/dev_even.json``
and ``proofwriter/dev_even.json``, Logic-LM format) measures, each beside a floor measured in the
same run on the same machine:

- **PrOntoQA / ProofWriter** ``ask_many`` items/s against a plain SWI-Prolog proof
  meta-interpreter (backward chaining with proof terms and a loop check, the same clauses asserted
  and retracted per item, the question and its complement proved), run by ``swipl`` itself. Its
  depth bound is 30, deeper than any proof in these data sets (a plain depth-first search bounded
  at peirce's 200 takes exponential time on the questions it cannot prove, which peirce settles by
  tabling): the row counts the answers on which the floor and peirce agree, so a floor that
  answered otherwise would show; each side counts the fastest of its runs over all the items
  (after a garbage collection), in wall-clock and in CPU time, the two sides taking 7 turns
  (peirce's runs, then a ``swipl`` process's 3) so that both meet the same drifts of the
  machine's speed;
- **check_proof**, a 20-step chain, warm: p50 / p99 in ms, beside the same 40 proofs (each step and
  its complement) in the native meta-interpreter;
- **cold start**: import of ``peirce`` plus the first ``check_proof``, in a fresh interpreter
  with the bytecode compiled (as installed); beside it a first check that needs Prolog, and the
  start with no bytecode (every module compiled from source);
- **memory** for 100k facts in a ``.pl`` file: peak resident memory of a fresh process loading
  it into a :class:`~peirce.engine.prolog.KnowledgeBase` (``load_program``) and proving one,
  beside a fresh ``swipl`` consulting it and proving the same; both measured alike (``wait4``);
- **scaling**: seconds against knowledge-base size, proof depth, fan-out and number of records,
  with the fitted exponent (the slope of log time against log size);
- **ClaimTrees-50**: one 50-claim chain checked offline, beside unit propagation in Python;
- **ARCHE repair**: the engine's repair (small steps one mode at a time, Z3 MaxSMT past a size)
  beside an exhaustive search over relabelings;
- **LogicScore search**: the engine's search (Python breadth first up to a size, ``kb/chain.pl``
  past it) beside a plain breadth-first search in Python;
- **SCORE**: pairs/s beside a regex floor.

The last four rows each run in a fresh process of their own (both sides in it), after the
curves: a process that has held the curves' large knowledge bases runs later paths more slowly.
Ratios are ``peirce / floor`` in time (greater than 1: peirce is slower). Nothing here is a test:
tests assert behaviour; this prints figures. The last line is one JSON object with at least
``prontoqa_ratio``, ``proofwriter_ratio``, ``native_prontoqa_items_per_second``,
``check_proof_p50_ms``, ``check_proof_p99_ms``, ``cold_start_s``, ``memory_ratio_100k``,
``depth_exponent``, ``claimtrees50_ms``, ``arche_repair_ratio``, ``logicscore_ratio``,
``score_ratio`` (those of the rows run: ``--only arche,logicscore,score`` runs three), and the
keys of the ``kb`` row (a million facts and triples beside ``swipl`` and rdflib:
:mod:`~peirce.evaluators.bench.perf_kb`).
"""

# Kept whole (past 400 lines): one benchmark whose rows are measured in one run, each beside its
# floor, the floor's code beside the row so that what is compared is read at once; the paths that
# are not Prolog queries are in perf_paths. (A comment, since the docstring is the command's help.)

from __future__ import annotations

import gc
import itertools
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from peirce.errors import ConfigError
from peirce.evaluators.bench.perf_paths import ROWS, PathRow
from peirce.evaluators.bench.runner import Benchmark, Option, Settings, Summary
from peirce.logic import Clause, Compound, Const, Literal, Term, Var

__all__ = [
    "BENCHMARK",
    "Perf",
    "fit_exponent",
    "native_answers",
    "native_best",
    "native_items_per_second",
    "prolog_text",
]


# -- Prolog text of peirce's clauses, for the native side -----------------------------------------


def _atom(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'"


def _term(t: Term, names: dict[str, str]) -> str:
    if isinstance(t, Var):
        return names.setdefault(t.name, f"V{len(names)}")
    if isinstance(t, Const):
        v = t.value
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return _atom(str(v))
        return repr(v) if isinstance(v, float) and math.isfinite(v) else str(v)
    assert isinstance(t, Compound)
    return f"{_atom(t.functor)}({', '.join(_term(a, names) for a in t.args)})"


def _literal(lit: Literal, names: dict[str, str]) -> str:
    name = _atom(("n:" if lit.negated else "p:") + lit.predicate)
    if not lit.args:
        return name
    return f"{name}({', '.join(_term(a, names) for a in lit.args)})"


def prolog_text(clause: Clause) -> str:
    """``c(Head, [Body...])`` of a clause, as SWI-Prolog reads it (names quoted, variables fresh).

    >>> X = Var("X")
    >>> prolog_text(Clause(Literal("smart", (X,)), (Literal("sour", (X,), negated=True),)))
    "c('p:smart'(V0), ['n:sour'(V0)])"
    """
    names: dict[str, str] = {}
    head = _literal(clause.head, names)
    body = ", ".join(_literal(b, names) for b in clause.body)
    return f"c({head}, [{body}])"


#: The native floor: a plain backward-chaining meta-interpreter with proof terms and a loop check
#: against the ancestors (a list, as a textbook one has it), depth-bounded like peirce's.
META = r"""
:- dynamic c/2.
solve(G, Anc, D, n(G, Ps)) :-
    D > 0, \+ (member(A, Anc), A =@= G),
    c(G, B), D1 is D - 1, solve_all(B, [G|Anc], D1, Ps).
solve_all([], _, _, []).
solve_all([G|Gs], Anc, D, [P|Ps]) :- solve(G, Anc, D, P), solve_all(Gs, Anc, D, Ps).
proved(G, Depth) :- once(solve(G, [], Depth, _)).
verdict(G, NG, Depth, V) :-
    ( proved(G, Depth) -> Y = 1 ; Y = 0 ), ( proved(NG, Depth) -> N = 1 ; N = 0 ), V = Y-N.
one(item(Cls, G, NG), Depth) :-
    forall(member(C, Cls), assertz(C)), verdict(G, NG, Depth, _), retractall(c(_, _)).
run(Depth, Repeat) :-
    findall(I, item(I), Items), length(Items, N),
    get_time(T0),
    forall(between(1, Repeat, _), forall(member(I, Items), one(I, Depth))),
    get_time(T1), S is (T1 - T0) / Repeat,
    format("~w ~w~n", [N, S]).
best(Depth, Repeat) :-
    findall(I, item(I), Items), length(Items, N),
    findall(S-C, ( between(1, Repeat, _), garbage_collect,
                   get_time(T0), statistics(cputime, C0),
                   forall(member(I, Items), one(I, Depth)),
                   get_time(T1), statistics(cputime, C1), S is T1 - T0, C is C1 - C0 ), Runs),
    pairs_keys_values(Runs, Ss, Cs), min_list(Ss, Best), min_list(Cs, BestCpu),
    format("~w ~w ~w~n", [N, Best, BestCpu]).
verdicts(Depth) :-
    forall(item(item(Cls, G, NG)),
           ( forall(member(C, Cls), assertz(C)), verdict(G, NG, Depth, Y-N),
             retractall(c(_, _)), format("~w~w~n", [Y, N]) )).
"""


def _swipl() -> str:
    found = shutil.which("swipl")
    if found is None:
        raise ConfigError("swipl is not on the PATH: the native floors need SWI-Prolog")
    return found


#: The native floor's depth bound (see the module's docstring).
NATIVE_DEPTH = 30


def native_items_per_second(
    items: Sequence[tuple[Sequence[Clause], Literal]],
    *,
    depth: int = NATIVE_DEPTH,
    repeat: int = 1,
    best: bool = False,
) -> float:
    """Items per second of the native meta-interpreter on ``(clauses, goal)`` items (the goal and
    its complement proved, as :func:`~peirce.pipelines.proofs.ask` does); consulting the file is
    not timed. The mean of ``repeat`` runs, or with ``best`` the fastest of them (each after a
    garbage collection, as peirce's side of the QA rows is timed)."""
    if best:
        return native_best(items, depth=depth, repeat=repeat)[0]
    n, seconds = _native(items, f"run({depth}, {repeat})").split()[-2:]
    return int(n) / float(seconds) if float(seconds) > 0 else math.inf


def native_best(
    items: Sequence[tuple[Sequence[Clause], Literal]], *, depth: int = NATIVE_DEPTH, repeat: int = 1
) -> tuple[float, float]:
    """Items per second of the fastest of ``repeat`` runs of the native meta-interpreter (each
    after a garbage collection), in wall-clock time and in CPU time."""
    n, seconds, cpu = _native(items, f"best({depth}, {repeat})").split()[-3:]
    return tuple(int(n) / float(t) if float(t) > 0 else math.inf for t in (seconds, cpu))  # type: ignore[return-value]


def native_answers(
    items: Sequence[tuple[Sequence[Clause], Literal]], *, depth: int = NATIVE_DEPTH
) -> list[str]:
    """What the native meta-interpreter answers for each item: ``True``, ``False`` or
    ``Unknown`` (both proved: ``Contradiction``), so that tests can hold the floor to the same
    answers as peirce."""
    names = {"10": "True", "01": "False", "00": "Unknown", "11": "Contradiction"}
    return [names[line] for line in _native(items, f"verdicts({depth})").split()]


def _native(items: Sequence[tuple[Sequence[Clause], Literal]], goal: str) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "items.pl"
        with path.open("w", encoding="utf-8") as out:
            out.write(META)
            for clauses, question in items:
                cls = ", ".join(prolog_text(c) for c in clauses)
                g = prolog_text(Clause(question))[2:-5]  # c(G, []) -> G
                ng = prolog_text(Clause(question.complement()))[2:-5]
                out.write(f"item(item([{cls}], {g}, {ng})).\n")
        done = subprocess.run(
            [_swipl(), "-q", "-g", goal, "-t", "halt", str(path)],
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
    if done.returncode != 0:
        raise RuntimeError(f"swipl failed: {done.stderr.strip()[:500]}")
    return done.stdout


# -- helpers --------------------------------------------------------------------------------------


def fit_exponent(sizes: Sequence[float], seconds: Sequence[float]) -> float:
    """The slope of log(seconds) against log(size), least squares (1.0: linear).

    >>> round(fit_exponent([10, 100, 1000], [0.01, 0.1, 1.0]), 3)
    1.0
    >>> round(fit_exponent([10, 100, 1000], [0.01, 1.0, 100.0]), 3)
    2.0
    """
    pts = [(math.log(n), math.log(s)) for n, s in zip(sizes, seconds, strict=True) if s > 0]
    if len(pts) < 2:
        return math.nan
    mx = statistics.fmean(x for x, _ in pts)
    my = statistics.fmean(y for _, y in pts)
    den = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / den if den else math.nan


def _best(fn: Callable[[], object], repeat: int = 3) -> float:
    """The fastest of ``repeat`` runs of ``fn``, in seconds (a full collection before each)."""
    best = math.inf
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return ordered[k]


def _run_python(
    code: str,
    *args: str,
    env: dict[str, str] | None = None,
    timeout: float = 600,
    what: str = "the measuring process",
) -> str:
    """The last line ``python -c code args...`` prints; :class:`RuntimeError` when it fails."""
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
        env=env,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{what} failed: {done.stderr.strip()[-800:]}")
    return done.stdout.strip().splitlines()[-1]


# -- the rows -------------------------------------------------------------------------------------


#: Turns of each side of the QA rows (the fastest run counts, on both sides).
QA_RUNS = 7
#: Runs of the native floor per turn, in one ``swipl`` process (its first is slower: warm-up).
NATIVE_TURN = 3


def qa_row(path: Path, limit: int | None) -> dict[str, float]:
    """PrOntoQA or ProofWriter: ``ask_many`` against the native meta-interpreter."""
    from peirce.evaluators.bench.prontoqa import answer_all, load_qa
    from peirce.results import AskResult
    from peirce.translators import cnl

    items = load_qa(str(path), limit, chain=False)
    native_items: list[tuple[Sequence[Clause], Literal]] = []
    asked: list[int] = []
    for i, it in enumerate(items):
        goal = cnl.translate_question(it.question).fact
        if goal is not None:
            native_items.append((it.translation.clauses, goal))
            asked.append(i)
    best = best_cpu = math.inf
    native = native_cpu = 0.0
    correct = 0
    results: list[AskResult] = []
    # the fastest run on each side, the two sides taking turns: a busy machine slows some runs,
    # and the speed of a virtual machine drifts (the floor alone, best of 7 in one process, was
    # seen between 33,000 and 66,000 items/s in six runs in a row)
    for _ in range(QA_RUNS):
        correct, seconds, results = answer_all(items)
        _, cpu, _ = answer_all(items, clock=time.process_time)
        best, best_cpu = min(best, seconds), min(best_cpu, cpu)
        wall_rate, cpu_rate = native_best(native_items, repeat=NATIVE_TURN)
        native, native_cpu = max(native, wall_rate), max(native_cpu, cpu_rate)
    ours, ours_cpu = len(items) / best, len(items) / best_cpu
    theirs = native_answers(native_items)
    agree = sum(results[i].answer.value == a for i, a in zip(asked, theirs, strict=True))
    return {
        "items": len(items),
        "native_items": len(native_items),
        "native_agreement": agree,
        "accuracy": correct / len(items) if items else 0.0,
        "items_per_second": ours,
        "native_items_per_second": native,
        "ratio": native / ours if ours else math.inf,
        "cpu_ratio": native_cpu / ours_cpu if ours_cpu else math.inf,
    }


#: One path row measured in a process of its own: its figures as a JSON line.
PATH_ROW = """
import json, sys
from peirce.evaluators.bench.perf_paths import measure
rows = measure(quick=sys.argv[1] == "quick", only={sys.argv[2]})
print(json.dumps({k: [r.peirce_ms, r.floor_ms, r.ratio, r.note] for k, r in rows.items()}))
"""


def paths_apart(*, quick: bool, only: set[str]) -> dict[str, PathRow]:
    """:func:`~peirce.evaluators.bench.perf_paths.measure`, each row in a fresh process (both
    sides of a row in the same one): what the rows before it left behind (the large knowledge
    bases of the curves, caches, a heap grown by them) slows the path measured after them, and
    not both sides alike."""
    import json

    out: dict[str, PathRow] = {}
    for name in (n for n in PATH_ROWS if n in only):
        size = "quick" if quick else "full"
        line = _run_python(PATH_ROW, size, name, timeout=1800, what=f"the {name} row")
        for key, (ours, floor, ratio, note) in json.loads(line).items():
            out[key] = PathRow(ours, floor, ratio, note)
    return out


_SYLLABLES = ("wum", "jom", "zum", "rom", "tum", "yum", "dum", "lem", "gor", "num", "bim")


def _noun(k: int) -> str:
    a, b = divmod(k, len(_SYLLABLES))
    return f"{_SYLLABLES[a % len(_SYLLABLES)]}{_SYLLABLES[b]}pus"


def chain_text(n: int) -> tuple[str, list[str]]:
    """A PrOntoQA-like context of ``n`` rules and the ``n`` steps of the chain that follows it.

    >>> context, steps = chain_text(2)
    >>> steps
    ['Max is a jomjompus.', 'Max is a jomzumpus.']
    """
    nouns = [_noun(len(_SYLLABLES) + k) for k in range(n + 1)]
    rules = [f"Every {a} is a {b}." for a, b in itertools.pairwise(nouns)]
    context = " ".join([f"Max is a {nouns[0]}.", *rules])
    return context, [f"Max is a {b}." for b in nouns[1:]]


def check_proof_row(steps: int, runs: int) -> dict[str, float]:
    """``check_proof`` on a warm ``steps``-step chain: p50 and p99, and the native floor of the
    same proofs (each step and its complement)."""
    from peirce.pipelines.proofs import check_proof
    from peirce.translators import cnl

    context, chain = chain_text(steps)
    report = check_proof(context, chain)
    if not report.all_valid:
        raise RuntimeError("the generated chain does not check: the bench is broken")
    for _ in range(5):
        check_proof(context, chain)
    times, cpu = [], []
    for _ in range(runs):
        t0, c0 = time.perf_counter(), time.thread_time()
        check_proof(context, chain)
        cpu.append(time.thread_time() - c0)
        times.append(time.perf_counter() - t0)
    clauses = cnl.translate(context).clauses
    goals = [c.head for s in chain for c in cnl.translate(s).clauses]
    # the native floor: the same clauses asserted once per chain, then every step proved
    native = native_items_per_second([(clauses, g) for g in goals], repeat=20)
    native_chain_ms = len(goals) / native * 1e3 if native else math.nan
    return {
        "steps": steps,
        "p50_ms": _percentile(times, 0.5) * 1e3,
        "p99_ms": _percentile(times, 0.99) * 1e3,
        # the CPU time of the calling thread: what the code spends, without the waits of a
        # process descheduled on a busy machine (the wall-clock tail is mostly those)
        "p50_cpu_ms": _percentile(cpu, 0.5) * 1e3,
        "p99_cpu_ms": _percentile(cpu, 0.99) * 1e3,
        "native_chain_ms": native_chain_ms,
    }


COLD = """
import time
t0 = time.perf_counter()
import peirce
peirce.check_proof("Every cat is a mammal. Tom is a cat.", ["Tom is a mammal."])
print(time.perf_counter() - t0)
"""

#: a first check that needs Prolog: a step that is a rule is proved with its body assumed
COLD_PROLOG = COLD.replace(
    '"Every cat is a mammal. Tom is a cat.", ["Tom is a mammal."]',
    '"Every cat is a mammal. Every mammal is an animal.", ["Every cat is an animal."]',
)


def cold_start_row(runs: int) -> dict[str, float]:
    """Import of ``peirce`` and the first ``check_proof`` in a fresh interpreter (best of runs),
    beside the interpreter's own start (``python -c pass``).

    As an installed package starts: with its modules' bytecode compiled (pip compiles it at
    install; here it is written under a temporary ``PYTHONPYCACHEPREFIX``, so the checkout is
    left as it is) and the caches filled (parse tables, the compiled meta-interpreter), by one
    run that is not counted. The first check is answered from the least model of the context
    (no Prolog); a first check that needs Prolog (started, ``kb/meta.pl`` loaded) is measured
    beside it, and the start with every module compiled from source (an editable install under
    ``PYTHONDONTWRITEBYTECODE=1``), all best of runs; the kinds of run take turns, so that a
    busy spell of the machine slows each alike."""
    source_env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    source_env.pop("PYTHONPYCACHEPREFIX", None)
    ours = prolog = from_source = bare = math.inf
    with tempfile.TemporaryDirectory() as prefix:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = prefix
        _run_python(COLD_PROLOG, env=env)  # writes the bytecode and fills the caches
        for _ in range(runs):
            ours = min(ours, float(_run_python(COLD, env=env)))
            prolog = min(prolog, float(_run_python(COLD_PROLOG, env=env)))
            from_source = min(from_source, float(_run_python(COLD, env=source_env)))
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], check=True)
            bare = min(bare, time.perf_counter() - t0)
    return {
        "cold_start_s": ours,
        "cold_start_prolog_s": prolog,
        "cold_start_from_source_s": from_source,
        "interpreter_start_s": bare,
    }


#: peirce's side of the memory row: the facts file loaded through the public path (read by
#: Prolog as data straight into the knowledge base), then one fact proved.
MEMORY = """
import sys
from peirce.engine.prolog import KnowledgeBase, Limits
from peirce.logic import Const, Literal
path, n = sys.argv[1], int(sys.argv[2])
kb = KnowledgeBase(limits=Limits(input_bytes=2**30))
with open(path, encoding="utf-8") as f:
    diagnostics = kb.load_program(f.read(), source="facts.pl")
assert not diagnostics, diagnostics[:3]
goal = Literal("f", (Const(f"c{n - 1}"), Const(n - 1)))
assert kb.ask(goal).verdict.value == "entailed"
"""

#: Runs a command and prints its peak resident memory in KiB: ``wait4`` gives the rusage of that
#: one child. Both sides run under it, each in a fresh process (a child's peak counts its start
#: from this small parent, the same for both).
PEAK = """
import os, subprocess, sys
child = subprocess.Popen(sys.argv[1:])
_, status, usage = os.wait4(child.pid, 0)
if status:
    sys.exit(f"{sys.argv[1:3]} failed: {status}")
print(usage.ru_maxrss)
"""


def _peak_kib(argv: Sequence[str]) -> int:
    """Peak resident memory (KiB) of ``argv`` run in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-S", "-c", PEAK, *argv],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the measured process failed: {done.stderr.strip()[-800:]}")
    return int(done.stdout.split()[-1])


def memory_row(n: int, runs: int = 3) -> dict[str, float]:
    """Peak resident memory (MiB) of ``n`` facts loaded from a ``.pl`` file: by peirce (the file
    read as data into a :class:`~peirce.engine.prolog.KnowledgeBase`, one fact proved) and by
    ``swipl`` consulting the same file (the same fact proved); beside them each one's start
    (``python -c 'import peirce'``, ``swipl`` halting at once). Each the least of ``runs`` fresh
    processes, the kinds taking turns."""
    swipl = _swipl()
    goal = f"f(c{n - 1}, {n - 1})"
    peirce = swipl_kib = start = swipl_start = math.inf
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "facts.pl"
        path.write_text("".join(f"f(c{i}, {i}).\n" for i in range(n)), encoding="utf-8")
        for _ in range(runs):
            peirce = min(peirce, _peak_kib([sys.executable, "-c", MEMORY, str(path), str(n)]))
            swipl_kib = min(
                swipl_kib, _peak_kib([swipl, "-q", "-g", goal, "-t", "halt", str(path)])
            )
            start = min(start, _peak_kib([sys.executable, "-c", "import peirce"]))
            swipl_start = min(swipl_start, _peak_kib([swipl, "-q", "-g", "halt"]))
    peirce_mib, swipl_mib = peirce / 1024, swipl_kib / 1024
    start_mib, swipl_start_mib = start / 1024, swipl_start / 1024
    return {
        "facts": n,
        "peirce_peak_mib": peirce_mib,
        "peirce_import_mib": start_mib,
        "swipl_peak_mib": swipl_mib,
        "swipl_start_mib": swipl_start_mib,
        "ratio": peirce_mib / swipl_mib if swipl_mib else math.inf,
        "ratio_above_import": (peirce_mib - start_mib) / swipl_mib if swipl_mib else math.inf,
        "ratio_above_start": (peirce_mib - start_mib) / (swipl_mib - swipl_start_mib)
        if swipl_mib > swipl_start_mib
        else math.inf,
    }


@dataclass(slots=True)
class Curve:
    """Seconds against size for one scaling dimension, and what stopped it (if anything)."""

    sizes: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    stopped: str = ""

    def exponent(self) -> float:
        return fit_exponent(self.sizes, self.seconds)

    def figures(self) -> dict[str, object]:
        return {
            "sizes": self.sizes,
            "seconds": [round(s, 6) for s in self.seconds],
            "exponent": _finite(self.exponent()),
            "stopped": self.stopped,
        }


def _ask_curve(sizes: Sequence[int], make: Callable[[int], tuple[list[Clause], Literal]]) -> Curve:
    """Seconds of one ``KnowledgeBase`` load and ``ask`` per size (best of 3)."""
    from peirce.engine.prolog import KnowledgeBase, Limits

    curve = Curve()
    for n in sizes:
        clauses, goal = make(n)
        # bounded in time, not in inferences: the default 2,000,000 stops a proof 10,000 deep
        # (the ancestor check is linear per step), and the curve is what is measured here
        limits = Limits(
            depth=max(200, 2 * n + 10), input_bytes=2**30, seconds=60.0, inferences=10**9
        )
        verdicts: list[str] = []

        def once(
            clauses: list[Clause] = clauses,
            goal: Literal = goal,
            limits: Limits = limits,
            verdicts: list[str] = verdicts,
        ) -> None:
            with KnowledgeBase(clauses, limits=limits) as kb:
                verdicts.append(kb.ask(goal).verdict.value)

        try:
            seconds = _best(once)
        except (RecursionError, RuntimeError) as exc:
            curve.stopped = f"at {n}: {type(exc).__name__}: {exc}"[:300]
            break
        if verdicts[-1] != "entailed":
            curve.stopped = f"at {n}: the goal was not proved ({verdicts[-1]})"
            break
        curve.sizes.append(n)
        curve.seconds.append(seconds)
    return curve


def _depth_program(n: int) -> tuple[list[Clause], Literal]:
    x = Var("X")
    rules = [Clause(Literal(f"p{k + 1}", (x,)), (Literal(f"p{k}", (x,)),)) for k in range(n)]
    return [Clause(Literal("p0", (Const("a"),))), *rules], Literal(f"p{n}", (Const("a"),))


def _fanout_program(n: int) -> tuple[list[Clause], Literal]:
    x = Var("X")
    rules = [Clause(Literal("p", (x,)), (Literal(f"r{k}", (x,)),)) for k in range(n)]
    return [*rules, Clause(Literal(f"r{n - 1}", (Const("a"),)))], Literal("p", (Const("a"),))


def _kb_program(n: int) -> tuple[list[Clause], Literal]:
    facts = [Clause(Literal("f", (Const(f"c{i}"),))) for i in range(n)]
    return facts, Literal("f", (Const(f"c{n - 1}"),))


def records_curve(sizes: Sequence[int]) -> Curve:
    """Seconds of ``ask_many`` over ``n`` generated PrOntoQA-like records."""
    from peirce.pipelines.proofs import Context, ask_many

    curve = Curve()
    context, steps = chain_text(3)
    ask_many([(context, steps[-1])])
    for n in sizes:
        records: list[tuple[Context, str]] = [(context, steps[i % len(steps)]) for i in range(n)]
        curve.sizes.append(n)
        curve.seconds.append(_best(partial(ask_many, records), repeat=1))
    return curve


# -- the benchmark --------------------------------------------------------------------------------


@dataclass(slots=True)
class PerfResults:
    rows: dict[str, dict[str, float]] = field(default_factory=dict)
    curves: dict[str, Curve] = field(default_factory=dict)
    extra: dict[str, PathRow] = field(default_factory=dict)
    seconds: float = 0.0


def _finite(x: float) -> float | None:
    """``x`` rounded, or ``None`` for a figure that could not be measured (JSON has no NaN)."""
    return round(x, 3) if math.isfinite(x) else None


#: What ``--only`` may name: the rows of this module and those of :mod:`perf_paths`.
PATH_ROWS = tuple(ROWS)
ALL_ROWS = ("qa", "check_proof", "cold_start", "memory", "curves", "kb", *PATH_ROWS)


def _only(text: str | None) -> set[str]:
    """The rows ``--only`` names (every row when it is not given)."""
    if text is None:
        return set(ALL_ROWS)
    names = {n.strip() for n in text.split(",") if n.strip()}
    unknown = sorted(names - set(ALL_ROWS))
    if unknown or not names:
        raise ConfigError(
            f"--only: unknown row(s) {', '.join(unknown) or '(none given)'}; "
            f"expected some of {', '.join(ALL_ROWS)}"
        )
    return names


def _sizes(top: int, start: int = 10) -> list[int]:
    out, n = [], start
    while n <= top:
        out.append(n)
        n *= 10
    return out


class Perf(Benchmark[None, PerfResults]):
    """Hot paths beside their native floors, and scaling curves."""

    name = "perf"
    options = (
        Option("--data", help="a folder laid out like the data folder (prontoqa/, proofwriter/)"),
        Option("--limit", int, minimum=1, help="only the first N items of each QA data set"),
        Option("--runs", int, default=300, minimum=10, help="check_proof runs for p50/p99"),
        Option("--max-size", int, default=100_000, minimum=10, help="largest KB / record count"),
        Option("--max-depth", int, default=10_000, minimum=10, help="deepest proof measured"),
        Option(
            "--kb-facts",
            int,
            default=1_000_000,
            minimum=100,
            help="facts (and triples) of the kb row (see perf_kb)",
        ),
        Option("--quick", action="store_true", help="small sizes only (a smoke run)"),
        Option(
            "--only",
            metavar="ROWS",
            help="only these rows, comma-separated: " + ", ".join(ALL_ROWS) + " (default: all)",
        ),
    )

    def load(self, settings: Settings) -> None:
        return None

    def run(self, items: None, settings: Settings) -> PerfResults:
        start = time.perf_counter()
        quick = settings.flag("quick")
        top = 1_000 if quick else settings.integer("max_size")
        depth = 100 if quick else settings.integer("max_depth")
        out = PerfResults()
        only = _only(settings.maybe_text("only"))
        data = settings.maybe_path("data")
        if data is not None and "qa" in only:
            for name in ("prontoqa", "proofwriter"):
                path = data / name / "dev_even.json"
                if path.exists():
                    out.rows[name] = qa_row(path, settings.maybe_integer("limit"))
        if "check_proof" in only:
            runs = 30 if quick else settings.integer("runs")
            out.rows["check_proof"] = check_proof_row(20, runs)
        if "cold_start" in only:
            out.rows["cold_start"] = cold_start_row(1 if quick else 7)
        if "memory" in only:
            out.rows["memory"] = memory_row(top)
        if "curves" in only:
            # records first: a process that has held the large knowledge bases of the other
            # curves answers later questions more slowly (seen: 10k records 1.3 s fresh, 9.3 s
            # after them)
            out.curves["records"] = records_curve(_sizes(top, 100 if quick else 1_000))
            out.curves["kb_size"] = _ask_curve(_sizes(top), _kb_program)
            out.curves["depth"] = _ask_curve(_sizes(depth), _depth_program)
            out.curves["fanout"] = _ask_curve(_sizes(min(top, 10_000)), _fanout_program)
        if "kb" in only:
            from peirce.evaluators.bench.perf_kb import kb_row

            out.rows["kb"] = kb_row(
                10_000 if quick else settings.integer("kb_facts"), 1 if quick else 2
            )
        out.extra = paths_apart(quick=quick, only=only & set(PATH_ROWS))
        out.seconds = time.perf_counter() - start
        return out

    def summarise(self, results: PerfResults, settings: Settings) -> Summary:
        rows, curves, extra = results.rows, results.curves, results.extra
        lines: list[str] = []
        figures: dict[str, object] = {}
        if "prontoqa" in rows or "proofwriter" in rows:
            from peirce.engine import ground_ask

            figures["compiled_core"] = ground_ask.COMPILED
            lines.append(
                "ground contexts answered by "
                + (
                    "the compiled core"
                    if ground_ask.COMPILED
                    else "the pure Python (the compiled core "
                    + ("off: PEIRCE_PURE_PYTHON)" if ground_ask.CORE_BUILT else "not built)")
                )
            )
        for name in ("prontoqa", "proofwriter"):
            row = rows.get(name)
            if row is None:
                figures[f"{name}_ratio"] = None
                continue
            lines.append(
                f"{name}: ask_many {row['items_per_second']:,.0f} items/s, native "
                f"meta-interpreter {row['native_items_per_second']:,.0f} items/s: "
                f"{row['ratio']:.2f}x its time ({row['cpu_ratio']:.2f}x in CPU time; "
                f"{row['items']} items, "
                f"accuracy {row['accuracy']:.3f}; "
                f"the floor answers {row['native_agreement']:.0f} of {row['native_items']:.0f} as "
                "peirce does)"
            )
            figures[f"{name}_native_agreement"] = row["native_agreement"] / row["native_items"]
            figures[f"{name}_ratio"] = round(row["ratio"], 3)
            figures[f"{name}_cpu_ratio"] = round(row["cpu_ratio"], 3)
            figures[f"native_{name}_items_per_second"] = round(row["native_items_per_second"], 1)
            figures[f"{name}_items_per_second"] = round(row["items_per_second"], 1)
        if cp := rows.get("check_proof"):
            lines.append(
                f"check_proof, 20 steps, warm: p50 {cp['p50_ms']:.2f} ms, p99 {cp['p99_ms']:.2f} "
                f"ms (CPU p50 {cp['p50_cpu_ms']:.2f} ms, p99 {cp['p99_cpu_ms']:.2f} ms); "
                f"native proofs of the same 20 steps {cp['native_chain_ms']:.3f} ms"
            )
            figures.update(
                {
                    "check_proof_p50_ms": round(cp["p50_ms"], 3),
                    "check_proof_p99_ms": round(cp["p99_ms"], 3),
                    "check_proof_p50_cpu_ms": round(cp["p50_cpu_ms"], 3),
                    "check_proof_p99_cpu_ms": round(cp["p99_cpu_ms"], 3),
                    "check_proof_native_ms": round(cp["native_chain_ms"], 4),
                }
            )
        if cs := rows.get("cold_start"):
            lines.append(
                f"cold start (import + first check): {cs['cold_start_s']:.3f} s, "
                f"{cs['cold_start_prolog_s']:.3f} s when the check needs Prolog, "
                f"{cs['cold_start_from_source_s']:.3f} s with no bytecode "
                f"(the interpreter alone starts in {cs['interpreter_start_s']:.3f} s)"
            )
            figures.update(
                {
                    "cold_start_s": round(cs["cold_start_s"], 3),
                    "cold_start_prolog_s": round(cs["cold_start_prolog_s"], 3),
                    "cold_start_from_source_s": round(cs["cold_start_from_source_s"], 3),
                    "interpreter_start_s": round(cs["interpreter_start_s"], 3),
                }
            )
        if mem := rows.get("memory"):
            lines.append(
                f"{mem['facts']:,.0f} facts: peirce peak {mem['peirce_peak_mib']:.0f} MiB "
                f"({mem['peirce_import_mib']:.0f} MiB after import), swipl "
                f"{mem['swipl_peak_mib']:.0f} MiB: {mem['ratio']:.2f}x "
                f"({mem['ratio_above_import']:.2f}x above the import; from each one's start "
                f"({mem['swipl_start_mib']:.0f} MiB swipl): {mem['ratio_above_start']:.2f}x)"
            )
            figures.update(
                {
                    "memory_facts": int(mem["facts"]),
                    "memory_peirce_mib": round(mem["peirce_peak_mib"], 1),
                    "memory_swipl_mib": round(mem["swipl_peak_mib"], 1),
                    "memory_ratio_100k": round(mem["ratio"], 3),
                    "memory_swipl_start_mib": round(mem["swipl_start_mib"], 1),
                    "memory_ratio_above_start": _finite(mem["ratio_above_start"]),
                }
            )
        if kb := rows.get("kb"):
            from peirce.evaluators.bench.perf_kb import kb_figures

            kb_lines, kb_keys = kb_figures(kb)
            lines.extend(kb_lines)
            figures.update(kb_keys)
        for name, curve in curves.items():
            stop = f"; stopped {curve.stopped}" if curve.stopped else ""
            last = f"{curve.seconds[-1]:.4f} s" if curve.seconds else "-"
            span = f"{curve.sizes[0]}..{curve.sizes[-1]}" if curve.sizes else "-"
            lines.append(
                f"scaling in {name}: exponent {curve.exponent():.2f} over {span} "
                f"({last} at the largest){stop}"
            )
        for name, path in extra.items():
            lines.append(
                f"{name}: peirce {path.peirce_ms:.3f} ms, floor {path.floor_ms:.4f} ms: "
                f"{path.ratio:.2f}x ({path.note})"
            )
        if "depth" in curves:
            figures["depth_exponent"] = _finite(curves["depth"].exponent())
        if curves:
            figures["curves"] = {k: c.figures() for k, c in curves.items()}
        if ct := extra.get("claimtrees50"):
            figures["claimtrees50_ms"] = round(ct.peirce_ms, 3)
            figures["claimtrees50_floor_ms"] = round(ct.floor_ms, 4)
        for key, path_name in (
            ("arche_repair_ratio", "arche_repair"),
            ("logicscore_ratio", "logicscore_search"),
            ("score_ratio", "score"),
        ):
            if path_name in extra:
                figures[key] = round(extra[path_name].ratio, 3)
        figures["seconds"] = round(results.seconds, 1)
        if "prontoqa" not in rows:
            figures.setdefault("native_prontoqa_items_per_second", None)
        return Summary(tuple(lines), figures)


BENCHMARK = Perf()
