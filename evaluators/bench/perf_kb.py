"""Knowledge bases at knowledge-graph size, beside SWI-Prolog and rdflib in the same run.

The ``kb`` row of ``peirce bench perf`` (``--only kb``; ``--kb-facts N``, 10^6 by default)
generates two files in a temporary folder:

- a Prolog program of N facts (four relations of N/4 facts each, grouped by relation as a
  program is written) and four rules (a recursive one, one with a built-in);
- an N-Triples file of N triples (types, names, links between entities, typed literals) and a
  chain of ``rdfs:subClassOf``.

Each measurement runs in a fresh process (both sides alike; the sides take turns, the best of
``runs`` counts), wall-clock time as a user waits for it (on a busy machine a wall-clock p99 or
reload time counts the waits for a core too: the CPU times, ``kb_query_p99_cpu_ms_1m`` and
``kb_reload_cpu_s_1m``, are reported beside them, and ``kb_query_p99_preempted_share_1m``, the
share of the slowest 1% of questions during which the scheduler switched the process out
(``ru_nivcsw``): where it is near 1 the wall-clock tail is waiting for a core, not work):

- ``kb_load_ratio_1m``: ``KnowledgeBase.read_file`` of the program / ``consult/1`` of it by
  ``swipl`` (each timed inside its process, Prolog started before the clock);
- ``kb_memory_ratio_1m``: the peak resident memory of the process that loaded it (peirce: the
  Python process, interpreter and imports included) / that of ``swipl`` after consulting it;
- ``kb_query_p99_ms_1m``: p99 of ``KnowledgeBase.ask`` on 2,000 ground questions over the
  loaded program, half of them stated facts, half not (each proof, or the reason, built);
- ``console_first_prompt_s_1m``: ``peirce console FILE`` from its start to its end with
  ``:quit`` as its input (its first prompt, then the quit), beside ``swipl FILE`` with
  ``halt.`` (``console_first_prompt_ratio``);
- ``kb_reload_s_1m``: ``KnowledgeBase.load_saved`` of the knowledge base saved by
  ``KnowledgeBase.save`` (``.qlf``, its SHA-256 checked);
- ``rdf_load_triples_per_second`` and ``rdf_load_ratio``: ``load_rdf`` of the N-Triples file
  into a knowledge base (parsed by pyoxigraph, read by Prolog, ready for questions) / rdflib's
  ``Graph.parse`` of it alone.

And the gate over HTTP (``peirce serve`` in a process of its own, one worker, on loopback): a
Prolog knowledge base of N facts (:func:`write_gate_program`: relations the controlled English
reads, and two rules) registered with ``POST /v1/kbs`` (as premises of at most
``KnowledgeSource.MAX_TEXT`` characters cut at line ends, the bound of one premise), beside one of
:data:`GATE_SMALL` facts registered by the same server, then :data:`GATE_CALLS` calls of
``POST /v1/verify`` against each, taking turns (a chain that an entity is red and big, so
kind: true of every other entity), after :data:`GATE_WARMUP` calls each that are not
counted (the first builds what the knowledge base's questions are answered from):

- ``gate_register_s_1m`` and ``gate_register_s_small``: the wall-clock time of the
  registration (the knowledge base read and checked once by the server);
- ``gate_verify_p50_ms_1m``, ``gate_verify_p99_ms_1m``, ``gate_verify_p50_ms_small``,
  ``gate_verify_p99_ms_small``: each verify call's wall-clock time as the client sees it;
  ``gate_verify_p99_ratio``: the large one's p99 / the small one's;
- ``gate_verify_first_ms_1m``: the first call after the registration (not in the p99).

And what a worker that replaces another pays for that knowledge base, in a fresh process
(:data:`GATE_RESTART`): ``gate_rebuild_s_1m``, the gate built again from the program's text, beside
``gate_plain_load_s_1m``, a plain knowledge base's load of the same text (``gate_build_ratio_1m``),
and its first check (``gate_rebuild_first_ms_1m``); ``gate_save_s_1m``, the gate's knowledge base
saved in quick-load form (what a retiring worker does); ``gate_restore_s_1m``, the gate built
again from that form, and its first check (``gate_restore_first_ms_1m``).

A registration the server refuses (a bound) leaves those figures ``null`` and says the status in
``gate_register_status_1m`` (201 when registered) and the server's reason in a warning (logged).

Kept whole: the row's three parts (peirce's knowledge base, the console, the gate) share the
generated files, the swipl baseline and one JSON line, and are read together as one figure set.
"""

from __future__ import annotations

import json
import logging
import math
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from peirce.errors import ConfigError

__all__ = [
    "gate_row",
    "kb_row",
    "program_pieces",
    "write_gate_program",
    "write_ntriples",
    "write_program",
]

_log = logging.getLogger(__name__)

#: facts of the small knowledge base the gate's figures are compared with
GATE_SMALL = 1_000
#: verify calls measured against each knowledge base, and calls before them not counted
GATE_CALLS = 200
GATE_WARMUP = 3

_RULES = (
    "ancestor(X, Y) :- parent(X, Y).\n"
    "ancestor(X, Z) :- parent(X, Y), ancestor(Y, Z).\n"
    "adult(X) :- age(X, A), A >= 18.\n"
    "colleague(X, Y) :- works_at(X, C), works_at(Y, C), X \\== Y.\n"
)


def _parent(i: int, q: int) -> int:
    return (i * 7919 + 13) % q


def write_program(path: Path, n: int) -> None:
    """N facts (``parent/2``, ``age/2``, ``works_at/2``, ``likes/2``; N/4 each) and four rules."""
    q = max(1, n // 4)
    with open(path, "w", encoding="utf-8") as f:
        f.write("% generated: facts and a few rules\n")
        f.writelines(f"parent(p{i}, p{_parent(i, q)}).\n" for i in range(q))
        f.writelines(f"age(p{i}, {i % 90}).\n" for i in range(q))
        f.writelines(f"works_at(p{i}, 'Company {i % 1000}').\n" for i in range(q))
        f.writelines(f"likes(p{i}, item{(i * 31) % 5000}).\n" for i in range(q))
        f.write(_RULES)


def write_ntriples(path: Path, n: int) -> None:
    """N triples about N/5 entities, and a chain of 49 ``rdfs:subClassOf``."""
    ex = "http://example.org/"
    xsd = "http://www.w3.org/2001/XMLSchema#integer"
    rdf_type = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
    sub = "http://www.w3.org/2000/01/rdf-schema#subClassOf"
    m = max(1, n // 5)
    with open(path, "w", encoding="utf-8") as f:
        for i in range(n):
            s, k = f"<{ex}e{i % m}>", i % 5
            if k == 0:
                f.write(f"{s} <{rdf_type}> <{ex}Class{i % 50}> .\n")
            elif k == 1:
                f.write(f'{s} <{ex}name> "Entity number {i}" .\n')
            elif k == 2:
                f.write(f"{s} <{ex}knows> <{ex}e{(i * 13) % m}> .\n")
            elif k == 3:
                f.write(f'{s} <{ex}age> "{i % 90}"^^<{xsd}> .\n')
            else:
                f.write(f"{s} <{ex}worksFor> <{ex}Org{i % 1000}> .\n")
        f.writelines(f"<{ex}Class{c}> <{sub}> <{ex}Class{c + 1}> .\n" for c in range(49))


def write_gate_program(path: Path, n: int) -> None:
    """N facts the controlled English reads (``red/1``, ``big/1`` of every other entity,
    ``see/2``, ``like/2``; N/4 each) and two rules: red and big things are kind, kind things
    are nice."""
    q = max(1, n // 4)
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(f"red(p{i}).\n" for i in range(q))
        f.writelines(f"big(p{2 * i}).\n" for i in range(q))
        f.writelines(f"see(p{i}, p{_parent(i, q)}).\n" for i in range(q))
        f.writelines(f"like(p{i}, p{(i * 31) % q}).\n" for i in range(q))
        f.write("kind(X) :- red(X), big(X).\nnice(X) :- kind(X).\n")


def _serve(data_dir: Path, body: int) -> tuple[subprocess.Popen[bytes], str]:
    """``peirce serve`` on a free loopback port, one worker, bounds wide enough for the
    large knowledge base; the process and its base URL once it answers."""
    import socket

    import httpx

    with socket.socket() as probe:  # a loopback port free now (the OS picks it)
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    argv = [
        sys.executable, "-m", "peirce", "serve", "--port", str(port), "--workers", "1",
        "--data-dir", str(data_dir), "--max-body", str(body), "--max-kb-bytes", str(4 * body),
        "--request-timeout", "3600", "--header-timeout", "600",
        "--worker-memory", str(1 << 20), "--worker-requests", str(1 << 20),
    ]  # fmt: skip
    log = data_dir.with_name("serve.log")
    with open(log, "wb") as out:  # (the child keeps its own copy of the file)
        server = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=out)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if server.poll() is not None:
            err = log.read_text(encoding="utf-8", errors="replace")[-800:]
            raise RuntimeError(f"peirce serve ended: {err}")
        try:
            if httpx.get(f"{url}/healthz", timeout=5).status_code == 200:
                return server, url
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    server.kill()
    raise RuntimeError("peirce serve did not answer within 180 s")


def program_pieces(text: str, most: int) -> list[str]:
    """``text`` cut at line ends into pieces of at most ``most`` characters (a line longer is a
    piece of its own): the premises of a knowledge base whose lines joined again are the text.

    >>> program_pieces("a.\\nb.\\nc.\\n", 5)
    ['a.\\nb.', 'c.']
    """
    pieces: list[str] = []
    lines: list[str] = []
    size = -1
    for line in text.splitlines():
        if lines and size + 1 + len(line) > most:
            pieces.append("\n".join(lines))
            lines, size = [], -1
        lines.append(line)
        size += 1 + len(line)
    if lines:
        pieces.append("\n".join(lines))
    return pieces


def _register(url: str, path: Path) -> tuple[int, float, str]:
    """``POST /v1/kbs`` of the program at ``path`` (as premises of at most
    ``KnowledgeSource.MAX_TEXT`` characters, cut at line ends): the status, the seconds, the id
    (or the server's reason when refused)."""
    import httpx

    from peirce.pipelines.gate import KnowledgeSource

    text = path.read_text(encoding="utf-8")
    premises = program_pieces(text, KnowledgeSource.MAX_TEXT)
    body = {"kind": "prolog", "premises": premises, "name": path.stem}
    t0 = time.perf_counter()
    r = httpx.post(f"{url}/v1/kbs", json=body, timeout=3600)
    seconds = time.perf_counter() - t0
    if r.status_code != 201:
        return r.status_code, seconds, r.text[:500]
    return r.status_code, seconds, str(r.json()["id"])


def _verify(url: str, kb: str, k: int) -> tuple[float, str]:
    """One verify call about entity ``k``: its seconds and the action."""
    import httpx

    body = {
        "kb": kb,
        "reasoning": f"P{k} is red. P{k} is big. So p{k} is kind.\nANSWER: True",
        "question": f"P{k} is kind.",
    }
    t0 = time.perf_counter()
    r = httpx.post(f"{url}/v1/verify", json=body, timeout=3600)
    seconds = time.perf_counter() - t0
    if r.status_code != 200:
        raise RuntimeError(f"/v1/verify answered {r.status_code}: {r.text[:300]}")
    return seconds, str(r.json()["action"])


def _percentile(sorted_ms: Sequence[float], p: float) -> float:
    return sorted_ms[min(len(sorted_ms) - 1, math.ceil(p * len(sorted_ms)) - 1)]


def gate_row(n: int, calls: int = GATE_CALLS, small: int = GATE_SMALL) -> dict[str, float]:
    """The gate's figures for a registered knowledge base of ``n`` facts beside one of
    ``small`` facts (see the module's docstring); ``nan`` for what could not be measured."""
    import random

    nan = math.nan
    row: dict[str, float] = {"gate_facts": n, "gate_small_facts": small}
    with tempfile.TemporaryDirectory(prefix="peirce-gate-") as tmp:
        large, little = Path(tmp) / "large.pl", Path(tmp) / "small.pl"
        write_gate_program(large, n)
        write_gate_program(little, small)
        server, url = _serve(Path(tmp) / "server", 2 * large.stat().st_size + 1_000_000)
        try:
            status, seconds, small_id = _register(url, little)
            if status != 201:
                raise RuntimeError(f"the small knowledge base was refused: {small_id}")
            row["gate_register_s_small"] = seconds
            status, seconds, large_id = _register(url, large)
            row["gate_register_status_1m"] = status
            row["gate_register_s_1m"] = seconds if status == 201 else nan
            if status != 201:
                _log.warning("gate: the %s-fact knowledge base was refused (%s): %s",
                             f"{n:,}", status, large_id)  # fmt: skip
            rng = random.Random(11)
            kbs = [("small", small_id, max(1, small // 4))]
            if status == 201:
                kbs.append(("1m", large_id, max(1, n // 4)))
            times: dict[str, list[float]] = {name: [] for name, _, _ in kbs}
            passed: dict[str, int] = dict.fromkeys(times, 0)
            for i in range(GATE_WARMUP + calls):
                for name, kb, q in kbs:  # taking turns: a busy machine slows both alike
                    seconds, action = _verify(url, kb, rng.randrange(q))
                    if i == 0:
                        row[f"gate_verify_first_ms_{name}"] = seconds * 1e3
                    if i >= GATE_WARMUP:
                        times[name].append(seconds * 1e3)
                        passed[name] += action == "pass"
            for name in ("small", "1m"):
                got = sorted(times.get(name, ()))
                row[f"gate_verify_p50_ms_{name}"] = _percentile(got, 0.5) if got else nan
                row[f"gate_verify_p99_ms_{name}"] = _percentile(got, 0.99) if got else nan
                row[f"gate_verify_passed_{name}"] = passed.get(name, 0)
        finally:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        restart = [sys.executable, "-c", GATE_RESTART, str(large), str(Path(tmp) / "saved")]
        row.update(_last_json(_peak_run(restart)[0]))
    row["gate_calls"] = calls
    return row


#: What a worker that replaces another pays for a registered knowledge base, in a fresh
#: process: the gate built from the program's text (beside a plain knowledge base's load of the
#: same text), its first check; the gate saved (as a retiring worker does), then built again
#: from the saved form, and its first check.
GATE_RESTART = """
import json, sys, time
from pathlib import Path
from peirce.engine.prolog import KnowledgeBase
from peirce.engine.prolog.runtime import runtime
from peirce.evaluators.bench.perf_kb import program_pieces
from peirce.pipelines.gate import Gate, KnowledgeKind, KnowledgeSource
path, folder = Path(sys.argv[1]), Path(sys.argv[2])
runtime()
text = path.read_text(encoding="utf-8")
t0 = time.perf_counter()
with KnowledgeBase() as kb:
    kb.read_program(text)
plain = time.perf_counter() - t0
ks = KnowledgeSource(KnowledgeKind.PROLOG, tuple(program_pieces(text, KnowledgeSource.MAX_TEXT)))
chain, question = "P8 is red. P8 is big. So p8 is kind.\\nANSWER: True", "P8 is kind."
t0 = time.perf_counter()
gate = Gate(ks, saved=folder)
t1 = time.perf_counter()
assert gate.check(chain, question=question).action.value == "pass"
t2 = time.perf_counter()
gate.save(folder)
t3 = time.perf_counter()
gate.close()
t4 = time.perf_counter()
gate = Gate(ks, saved=folder)
t5 = time.perf_counter()
assert gate.restored and gate.check(chain, question=question).action.value == "pass"
t6 = time.perf_counter()
print(json.dumps({"gate_plain_load_s_1m": plain, "gate_rebuild_s_1m": t1 - t0,
                  "gate_rebuild_first_ms_1m": (t2 - t1) * 1e3, "gate_save_s_1m": t3 - t2,
                  "gate_restore_s_1m": t5 - t4, "gate_restore_first_ms_1m": (t6 - t5) * 1e3}))
"""


#: peirce's side: the program loaded, questions asked, the knowledge base saved.
LOAD = """
import json, random, resource, sys, time
from resource import RUSAGE_SELF, getrusage
from peirce.engine.prolog import KnowledgeBase
from peirce.engine.prolog.runtime import runtime
from peirce.logic import Const, Literal
path, n, saved = sys.argv[1], int(sys.argv[2]), sys.argv[3]
runtime()
kb = KnowledgeBase(builtins=True)
t0 = time.perf_counter()
program = kb.read_file(path)
load = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
assert program.count == n + 4 and not program.diagnostics, program.diagnostics[:3]
q, rng, times, cpu, proved, switched = max(1, n // 4), random.Random(7), [], [], 0, []
for i in range(2000):
    k = rng.randrange(q)
    other = (k * 7919 + 13 + i % 2) % q
    goal = Literal("parent", (Const(f"p{k}"), Const(f"p{other}")))
    s0 = getrusage(RUSAGE_SELF).ru_nivcsw
    t, c = time.perf_counter(), time.process_time()
    judged = kb.ask(goal)
    times.append(time.perf_counter() - t)
    cpu.append(time.process_time() - c)
    switched.append(getrusage(RUSAGE_SELF).ru_nivcsw > s0)
    proved += judged.verdict.value == "entailed"
slowest = sorted(range(2000), key=times.__getitem__)[1980:]
preempted = sum(switched[i] for i in slowest) / len(slowest)
times.sort()
cpu.sort()
t0 = time.perf_counter()
kb.save(saved)
save = time.perf_counter() - t0
print(json.dumps({"load": load, "peak_kib": peak, "p50": times[999], "p99": times[1979],
                  "p99_cpu": cpu[1979], "proved": proved, "save": save,
                  "preempted": preempted}))
"""

#: A saved knowledge base loaded back, one question asked of it.
RELOAD = """
import json, sys, time
from peirce.engine.prolog import KnowledgeBase
from peirce.engine.prolog.runtime import runtime
from peirce.logic import Const, Literal
runtime()
t0, c0 = time.perf_counter(), time.process_time()
kb = KnowledgeBase.load_saved(sys.argv[1])
reload, cpu = time.perf_counter() - t0, time.process_time() - c0
assert kb.ask(Literal("age", (Const("p1"), Const(1)))).verdict.value == "entailed"
print(json.dumps({"reload": reload, "reload_cpu": cpu}))
"""

#: The N-Triples file streamed into a knowledge base, a question asked of it.
RDF = """
import json, sys, time
from peirce.engine.prolog import KnowledgeBase
from peirce.engine.prolog.runtime import runtime
from peirce.engine.rdf_facts import load_rdf
from peirce.logic import Const, Literal
runtime()
kb = KnowledgeBase()
t0 = time.perf_counter()
graph = load_rdf(kb, sys.argv[1])
seconds = time.perf_counter() - t0
assert kb.ask(Literal("class49", (Const("e0"),))).verdict.value == "entailed"
print(json.dumps({"seconds": seconds, "triples": graph.count}))
"""

#: rdflib's side: the parse alone.
RDFLIB = """
import json, sys, time
from rdflib import Graph
t0 = time.perf_counter()
g = Graph()
g.parse(sys.argv[1], format="nt")
print(json.dumps({"seconds": time.perf_counter() - t0, "triples": len(g)}))
"""

_SWIPL_LOAD = (
    "get_time(T0), consult('{path}'), get_time(T1), T is T1 - T0, format('{{\"load\": ~w}}~n', [T])"
)


def _peak_run(argv: Sequence[str], stdin: str = "") -> tuple[str, float, int]:
    """Run ``argv`` with ``stdin`` as its input, from a small parent process: its standard
    output, its wall-clock seconds and its peak resident memory in KiB (``wait4`` of that one
    child, so both sides are measured alike)."""
    code = (
        "import os, subprocess, sys, time\n"
        "t0 = time.perf_counter()\n"
        "child = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, "
        "stdout=subprocess.PIPE, stderr=subprocess.PIPE)\n"
        f"child.stdin.write({stdin!r}.encode())\n"
        "child.stdin.close()\n"
        "data = child.stdout.read()\n"
        "_, status, usage = os.wait4(child.pid, 0)\n"
        "seconds = time.perf_counter() - t0\n"
        "if status:\n"
        "    sys.exit(child.stderr.read().decode()[-800:])\n"
        "sys.stdout.write(data.decode())\n"
        "print(seconds, usage.ru_maxrss)\n"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", code, *argv],
        capture_output=True,
        text=True,
        check=False,
        timeout=3600,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{argv[0]} failed: {done.stderr.strip()[-800:]}")
    *lines, last = done.stdout.strip().splitlines()
    seconds, kib = last.split()
    return "\n".join(lines), float(seconds), int(kib)


def _last_json(text: str) -> dict[str, float]:
    return dict(json.loads(text.strip().splitlines()[-1]))


def kb_row(n: int, runs: int, *, gate_calls: int = GATE_CALLS) -> dict[str, float]:
    """The figures of the ``kb`` row for ``n`` facts and ``n`` triples (see the module's
    docstring), each the best of ``runs``; the gate's (measured once: ``gate_calls`` verify
    calls against each knowledge base) beside them."""
    swipl = shutil.which("swipl")
    if swipl is None:
        raise ConfigError("swipl is not on the PATH: the kb row compares with SWI-Prolog")
    best: dict[str, float] = {}

    def keep(key: str, value: float) -> None:
        best[key] = min(best.get(key, math.inf), value)

    with tempfile.TemporaryDirectory(prefix="peirce-kb-") as tmp:
        program, triples = Path(tmp) / "kb.pl", Path(tmp) / "kb.nt"
        saved = Path(tmp) / "kb.saved"
        write_program(program, n)
        write_ntriples(triples, n)
        py = sys.executable
        for _ in range(runs):
            # (the peak of peirce's side is taken before it saves: qcompile holds a copy)
            ours = _last_json(_peak_run([py, "-c", LOAD, str(program), str(n), str(saved)])[0])
            keep("load", ours["load"])
            keep("peak_mib", ours["peak_kib"] / 1024)
            keep("p50_ms", ours["p50"] * 1e3)
            keep("p99_ms", ours["p99"] * 1e3)
            keep("p99_cpu_ms", ours["p99_cpu"] * 1e3)
            best["preempted"] = ours["preempted"]
            keep("save", ours["save"])
            best["proved"] = ours["proved"]
            goal = _SWIPL_LOAD.format(path=str(program).replace("'", "\\'"))
            out, _, peak = _peak_run([swipl, "-q", "-g", goal, "-t", "halt"])
            keep("swipl_load", _last_json(out)["load"])
            keep("swipl_peak_mib", peak / 1024)
            back = _last_json(_peak_run([py, "-c", RELOAD, str(saved)])[0])
            keep("reload", back["reload"])
            keep("reload_cpu", back["reload_cpu"])
            console = [py, "-m", "peirce", "console", str(program)]
            keep("console", _peak_run(console, ":quit\n")[1])
            keep("swipl_console", _peak_run([swipl, "-q", str(program)], "halt.\n")[1])
            rdf = _last_json(_peak_run([py, "-c", RDF, str(triples)])[0])
            keep("rdf", rdf["seconds"])
            best["triples"] = rdf["triples"]
            keep("rdflib", _last_json(_peak_run([py, "-c", RDFLIB, str(triples)])[0])["seconds"])
    best["facts"] = n
    best.update(gate_row(n, gate_calls))
    return best


def _num(x: float, digits: int = 3) -> float | None:
    """``x`` rounded, or ``None`` when it could not be measured (JSON has no NaN)."""
    return round(x, digits) if math.isfinite(x) else None


def _gate_figures(row: dict[str, float]) -> tuple[list[str], dict[str, object]]:
    """The summary lines and JSON keys of the gate's part of the row (none when it was not
    measured)."""
    if "gate_register_s_small" not in row:
        return [], {}
    n, small = int(row["gate_facts"]), int(row["gate_small_facts"])
    big = {k: row.get(k, math.nan) for k in
           ("gate_register_s_1m", "gate_verify_p50_ms_1m", "gate_verify_p99_ms_1m",
            "gate_verify_first_ms_1m")}  # fmt: skip
    ratio = big["gate_verify_p99_ms_1m"] / row["gate_verify_p99_ms_small"]
    status = int(row["gate_register_status_1m"])
    lines = [
        f"gate: a {small:,}-fact knowledge base registered in "
        f"{row['gate_register_s_small']:.2f} s, /v1/verify p50 "
        f"{row['gate_verify_p50_ms_small']:.1f} ms, p99 {row['gate_verify_p99_ms_small']:.1f} ms "
        f"({row['gate_calls']:.0f} calls; {row['gate_verify_passed_small']:.0f} passed)",
        f"gate: a {n:,}-fact knowledge base "
        + (
            f"registered in {big['gate_register_s_1m']:.1f} s, /v1/verify p50 "
            f"{big['gate_verify_p50_ms_1m']:.1f} ms, p99 {big['gate_verify_p99_ms_1m']:.1f} ms: "
            f"{ratio:.2f}x the small one's (first call {big['gate_verify_first_ms_1m']:.0f} ms; "
            f"{row['gate_verify_passed_1m']:.0f} passed)"
            if status == 201
            else f"refused by the server ({status}): not measured"
        ),
    ]
    figures: dict[str, object] = {
        "gate_kb_facts": n,
        "gate_register_status_1m": status,
        "gate_register_s_1m": _num(big["gate_register_s_1m"]),
        "gate_register_s_small": _num(row["gate_register_s_small"]),
        "gate_verify_p50_ms_1m": _num(big["gate_verify_p50_ms_1m"], 2),
        "gate_verify_p99_ms_1m": _num(big["gate_verify_p99_ms_1m"], 2),
        "gate_verify_first_ms_1m": _num(big["gate_verify_first_ms_1m"], 1),
        "gate_verify_p50_ms_small": _num(row["gate_verify_p50_ms_small"], 2),
        "gate_verify_p99_ms_small": _num(row["gate_verify_p99_ms_small"], 2),
        "gate_verify_p99_ratio": _num(ratio),
    }
    if "gate_rebuild_s_1m" in row:
        rebuild, plain = row["gate_rebuild_s_1m"], row["gate_plain_load_s_1m"]
        lines.append(
            f"gate: built again from its text in {rebuild:.2f} s ({rebuild / plain:.2f}x a plain "
            f"knowledge base's load, {plain:.2f} s; first check "
            f"{row['gate_rebuild_first_ms_1m']:.0f} ms); saved in {row['gate_save_s_1m']:.1f} s "
            f"and read back in {row['gate_restore_s_1m']:.2f} s (first check "
            f"{row['gate_restore_first_ms_1m']:.0f} ms)"
        )
        figures.update(
            gate_plain_load_s_1m=_num(plain),
            gate_rebuild_s_1m=_num(rebuild),
            gate_build_ratio_1m=_num(rebuild / plain),
            gate_rebuild_first_ms_1m=_num(row["gate_rebuild_first_ms_1m"], 1),
            gate_save_s_1m=_num(row["gate_save_s_1m"]),
            gate_restore_s_1m=_num(row["gate_restore_s_1m"]),
            gate_restore_first_ms_1m=_num(row["gate_restore_first_ms_1m"], 1),
        )
    return lines, figures


def kb_figures(row: dict[str, float]) -> tuple[list[str], dict[str, object]]:
    """The summary lines and the JSON keys of the ``kb`` row."""
    n = int(row["facts"])
    lines = [
        f"{n:,} facts: peirce loads them in {row['load']:.2f} s, swipl consults them in "
        f"{row['swipl_load']:.2f} s: {row['load'] / row['swipl_load']:.2f}x; peak memory "
        f"{row['peak_mib']:.0f} MiB beside swipl's {row['swipl_peak_mib']:.0f} MiB: "
        f"{row['peak_mib'] / row['swipl_peak_mib']:.2f}x",
        f"ground questions over them: p50 {row['p50_ms']:.3f} ms, p99 {row['p99_ms']:.3f} ms "
        f"(in CPU time {row['p99_cpu_ms']:.3f} ms; {row['preempted']:.0%} of the slowest 1% "
        f"were switched out by the scheduler; {row['proved']:.0f} of 2000 proved); saved "
        f"in {row['save']:.1f} s, loaded back in {row['reload']:.2f} s "
        f"({row['reload_cpu']:.2f} s of CPU time)",
        f"console: first prompt (and quit) in {row['console']:.2f} s, swipl's in "
        f"{row['swipl_console']:.2f} s: {row['console'] / row['swipl_console']:.2f}x",
        f"{row['triples']:,.0f} triples of N-Triples into a knowledge base in {row['rdf']:.2f} s "
        f"({row['triples'] / row['rdf']:,.0f} triples/s); rdflib parses them in "
        f"{row['rdflib']:.2f} s: {row['rdf'] / row['rdflib']:.2f}x",
    ]
    figures: dict[str, object] = {
        "kb_facts": n,
        "kb_load_ratio_1m": round(row["load"] / row["swipl_load"], 3),
        "kb_load_s_1m": round(row["load"], 3),
        "kb_swipl_consult_s_1m": round(row["swipl_load"], 3),
        "kb_memory_ratio_1m": round(row["peak_mib"] / row["swipl_peak_mib"], 3),
        "kb_query_p99_ms_1m": round(row["p99_ms"], 4),
        "kb_query_p50_ms_1m": round(row["p50_ms"], 4),
        "kb_query_p99_cpu_ms_1m": round(row["p99_cpu_ms"], 4),
        "kb_query_p99_preempted_share_1m": round(row["preempted"], 3),
        "kb_reload_cpu_s_1m": round(row["reload_cpu"], 3),
        "console_first_prompt_s_1m": round(row["console"], 3),
        "console_first_prompt_ratio": round(row["console"] / row["swipl_console"], 3),
        "kb_reload_s_1m": round(row["reload"], 3),
        "kb_save_s_1m": round(row["save"], 3),
        "rdf_load_triples_per_second": round(row["triples"] / row["rdf"], 1),
        "rdf_load_ratio": round(row["rdf"] / row["rdflib"], 3),
    }
    gate_lines, gate_keys = _gate_figures(row)
    return lines + gate_lines, {**figures, **gate_keys}
