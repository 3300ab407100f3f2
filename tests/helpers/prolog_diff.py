"""Differential runs against SWI-Prolog: the same programs and queries through the ``swipl``
executable and through peirce's proof engine (``KnowledgeBase(builtins=True)``, as the console
runs them); each query's first answers, in order, compared.

An answer is the values of the query's variables (in order of appearance), each as a JSON
shape that both sides can produce: an integer or float as itself, an atom ``["a", name]``, a
compound ``["f", name, arg, ...]``, a list ``["l", [item, ...], tail]``, a variable ``["v"]`` (its
identity not compared). A query whose search ends in an error or a limit on either side is
compared as the word ``error`` / ``limit``.

The programs are the test's own (generated, or written for the suite), so ``swipl`` consults
them as they are; each is loaded into a module of its own, in one ``swipl`` process for a
whole batch.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from subprocess import CompletedProcess

from peirce.engine.prolog import KnowledgeBase, Limits, parse_query
from peirce.errors import PeirceError
from peirce.jsontypes import JSON
from peirce.logic import Compound, Const, Term, Var

SWIPL = shutil.which("swipl")

_RUNNER = r"""
:- initialization(main, main).
:- use_module(library(http/json)).

main :-
    current_prolog_flag(argv, Argv),
    last(Argv, File),
    read_file_to_terms(File, Cases, []),
    forall(nth1(I, Cases, case(Text, Queries, N)), run_case(I, Text, Queries, N)).

run_case(I, Text, Queries, N) :-
    format(atom(M), "p~d", [I]),
    format(atom(F), "program~d.pl", [I]),
    setup_call_cleanup(open_string(Text, S),
                       catch(load_files(M:F, [stream(S), silent(true)]), _, true),
                       close(S)),
    forall(member(Q, Queries), run_query(M, Q, N)).

run_query(M, QText, N) :-
    catch(term_string(Q, QText, [variable_names(Vs)]), _, (Q = fail, Vs = [])),
    maplist(arg(2), Vs, Vals),
    catch(( findall(J, limit(N, ( call_with_inference_limit(M:Q, 20000000, R),
                                   (   R == inference_limit_exceeded
                                   ->  J = "limit"
                                   ;   maplist(js, Vals, J)
                                   ) )), Answers),
            Out = ok(Answers) ),
          E, ( E = error(resource_error(_), _) -> Out = limit ; Out = error )),
    (   Out = ok(As) -> atom_json_term(A, json([answers=As]), [width(0)]) ; A = Out ),
    format("~w~n", [A]).

js(X, [v]) :- var(X), !.
js(X, X) :- number(X), !.
js(X, [a, S]) :- atom(X), !, atom_string(X, S).
js([], [a, "[]"]) :- !.
js(X, [s, X]) :- string(X), !.
js(X, [l, Js, T]) :- X = [_|_], !, list_parts(X, Items, Tail), maplist(js, Items, Js), js(Tail, T).
js(X, [f, F|Js]) :-
    compound_name_arguments(X, F0, As),
    ( F0 == '[|]' -> F = "[|]" ; atom_string(F0, F) ),
    maplist(js, As, Js).

list_parts(L, [], L) :- ( var(L) ; L \= [_|_] ), !.
list_parts([H|T], [H|Hs], Tail) :- list_parts(T, Hs, Tail).
"""


@dataclass(frozen=True)
class Case:
    """A program and its queries (each compared on its first ``answers`` answers)."""

    program: str
    queries: tuple[str, ...]
    answers: int = 6


def _shape(t: Term) -> JSON:
    """The JSON shape of ``t`` (see the module's description), with a stack of its own."""
    out: list[JSON] = []
    work: list[tuple[Term, list[JSON]]] = [(t, out)]
    while work:
        x, into = work.pop()
        if isinstance(x, Var):
            into.append(["v"])
        elif isinstance(x, Const):
            into.append(["a", x.value] if isinstance(x.value, str) else x.value)
        elif isinstance(x, Compound):
            if x.functor == "$str" and len(x.args) == 1 and isinstance(x.args[0], Const):
                into.append(["s", str(x.args[0].value)])  # a string
                continue
            if x.functor == "[|]" and len(x.args) == 2:  # a list: flat, ["l", items, tail]
                items: list[JSON] = []
                whole: list[JSON] = ["l", items]
                into.append(whole)
                elems: list[Term] = []
                tail: Term = x
                while isinstance(tail, Compound) and tail.functor == "[|]" and len(tail.args) == 2:
                    elems.append(tail.args[0])
                    tail = tail.args[1]
                work.append((tail, whole))
                work.extend((e, items) for e in reversed(elems))
                continue
            node: list[JSON] = ["f", x.functor]
            into.append(node)
            work.extend((a, node) for a in reversed(x.args))
    return out[0]


def swipl_answers(cases: Sequence[Case]) -> list[list[JSON]]:
    """Per case, per query: ``[[answer, ...], complete]`` (complete false when the search was
    stopped by a limit after those answers) or ``"error"`` / ``"limit"``."""
    done = _swipl_run(_RUNNER, cases, check=False)
    lines = [ln for ln in done.stdout.splitlines() if ln.strip()]
    out: list[list[JSON]] = []
    it = iter(lines)
    for c in cases:
        got: list[JSON] = []
        for _ in c.queries:
            line = next(it, "missing")
            if line.startswith("{"):
                answers = json.loads(line)["answers"]
                stopped = bool(answers) and answers[-1] == "limit"
                got.append([answers[:-1] if stopped else answers, not stopped])
            else:
                got.append(line)
        out.append(got)
    return out


_COUNTER = r"""
:- initialization(main, main).

main :-
    current_prolog_flag(argv, Argv),
    last(Argv, File),
    read_file_to_terms(File, Cases, []),
    forall(nth1(I, Cases, case(Text, Queries, N)), count_case(I, Text, Queries, N)).

count_case(I, Text, Queries, N) :-
    format(atom(M), "p~d", [I]),
    format(atom(F), "program~d.pl", [I]),
    setup_call_cleanup(open_string(Text, S), load_files(M:F, [stream(S), silent(true)]), close(S)),
    forall(member(Q, Queries), count_query(M, Q, N)).

count_query(M, QText, N) :-
    term_string(Q, QText),
    run(M, Q, N, _),                            % warm: autoloading is not the program's work
    run(user, true, N, Base),
    run(M, Q, N, Inf),
    Net is Inf - Base,
    format("~d~n", [Net]).

run(M, Q, N, Inf) :-
    statistics(inferences, I0),
    findall(x, limit(N, catch(M:Q, _, true)), _),
    statistics(inferences, I1),
    Inf is I1 - I0.
"""


def swipl_inferences(cases: Sequence[Case]) -> list[list[int]]:
    """Per case, per query: the inferences ``swipl`` makes finding the query's first answers
    (its own count, less what its harness spends; the query run once before, so that
    autoloading a library is not counted)."""
    done = _swipl_run(_COUNTER, cases, check=True)
    counts = iter(int(ln) for ln in done.stdout.split())
    return [[next(counts) for _ in c.queries] for c in cases]


def _swipl_run(script: str, cases: Sequence[Case], *, check: bool) -> CompletedProcess[str]:
    """``swipl`` running ``script`` over ``cases`` (written as ``case/3`` facts to a file)."""
    assert SWIPL is not None
    with tempfile.TemporaryDirectory() as tmp:
        runner = os.path.join(tmp, "runner.pl")
        with open(runner, "w", encoding="utf-8") as f:
            f.write(script)
        data = os.path.join(tmp, "cases.data")
        with open(data, "w", encoding="utf-8") as f:
            for c in cases:
                qs = ", ".join(_quoted(q) for q in c.queries)
                f.write(f"case({_quoted(c.program)}, [{qs}], {c.answers}).\n")
        return subprocess.run(
            [SWIPL, "-q", "-f", "none", runner, data],
            capture_output=True,
            text=True,
            timeout=600,
            check=check,
        )


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


#: peirce's limits in the generated runs; ``swipl`` gets 20 million inferences per answer.
#: peirce counts the program's inferences as SWI-Prolog does (SEND+MORE makes some 0.53
#: million in both), so the same count; the depth and time limits are higher than the console's
#: so that a program the generator made deep or slow is compared rather than stopped.
LIMITS = Limits(inferences=20_000_000, seconds=15.0, depth=5000)


def peirce_answers(cases: Sequence[Case], limits: Limits = LIMITS) -> list[list[JSON]]:
    """The same, from peirce's engine (the console's way: ``builtins=True``)."""
    out: list[list[JSON]] = []
    for c in cases:
        got: list[JSON] = []
        with KnowledgeBase(builtins=True, limits=limits) as kb:
            kb.control = True  # as the console sets it
            diags = kb.load_program(c.program)
            errors = [d.message for d in diags if d.severity.value == "error"]
            for q in c.queries:
                if errors:
                    got.append(f"not read: {errors[0]}")
                    continue
                try:
                    goals = parse_query(q)
                    res = kb.query(goals, limit=c.answers)
                except PeirceError:  # an error of the program (as swipl's "error")
                    got.append("error")
                    continue
                names = _names(goals)
                answers = [
                    [_shape(s.bindings.get(n, Var("_"))) for n in names] for s in res.solutions
                ]
                got.append([answers, res.complete or len(answers) == c.answers])
        out.append(got)
    return out


def _names(goals: Sequence[object]) -> list[str]:
    from peirce.console import _vars

    seen = dict.fromkeys(n for n in _vars(goals) if not n.startswith("_"))  # type: ignore[arg-type]
    return list(seen)
