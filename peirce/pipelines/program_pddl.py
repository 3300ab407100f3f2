"""SayCan's PDDL goals planned by pyperplan (the ``planning`` extra), read as Faithful-CoT does.

A SayCan program is a PDDL ``(:goal ...)`` over Faithful-CoT's household domain (a robot that
finds, picks, carries and puts down items; MIT licence, Lyu et al. 2023). The goal is read as
data (:func:`read_sexpr`), its quantifiers and ``or`` grounded over the problem's objects into a
disjunction of conjunctions (static facts such as ``is-spicy`` and ``=`` decided on the way), and
each conjunction becomes an action ``reach-goal-K`` whose effect is the one goal the planner is
given; negated fluents in preconditions and goals are compiled to complement predicates kept by
every action, so the domain is plain STRIPS. pyperplan's greedy best-first search with the FF
heuristic finds a plan, over the operators in one fixed order (the same plan in every process);
the plan is written in SayCan's words as their executor writes it (``find``,
``pick``, ``put``; two ``go`` in a row merged unless the goal is to visit). As their executor
does, a goal equivalent to one of three tasks starts from that task's own initial state.

Kept whole (past 400 lines): the goal's reader, its grounding, the STRIPS compilation, the planner's
call and the plan written in SayCan's words all work on one household domain and are checked
together against what SayCan's executor does.
"""

from __future__ import annotations

import itertools
import logging
import re
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from peirce.engine.pysubset import Bounds
from peirce.engine.pysubset_lib import Exhausted, time_bound
from peirce.errors import ConfigError
from peirce.pipelines.program_run import ProgramRun, ProgramStatus
from peirce.translators.nlsl import NlslProgram

__all__ = ["holds", "plan_goal", "plan_valid", "plan_words", "read_sexpr", "run_pddl", "simulate"]

SExpr = str | list["SExpr"]

#: types and their objects (Faithful-CoT's problem.pddl)
_TYPES = {"object": "", "robot": "object", "location": "object", "item": "object"}
_TYPES |= {"snack": "item", "drink": "item", "tool": "item", "fruit": "snack"}
_TYPES |= {"non-fruit": "snack", "soda": "drink", "non-soda": "drink"}
_OBJECTS = {
    "robot": ["me"],
    "location": ["counter", "table", "user", "trash", "bowl", "initial"],
    "fruit": ["apple", "orange"],
    "non-fruit": ["kettle-chips", "multigrain-chips", "jalapeno-chips", "rice-chips", "energy-bar"],
    "soda": ["seven-up", "coke", "lime-soda", "grapefruit-soda", "pepsi"],
    "non-soda": ["tea", "redbull", "water"],
    "tool": ["sponge"],
}
_STATIC = {
    "is-caffeinated": ["tea", "redbull", "pepsi", "coke"],
    "is-salty": ["kettle-chips", "multigrain-chips", "jalapeno-chips", "rice-chips"],
    "is-sweet": ["apple", "orange", "energy-bar"],
    "is-spicy": ["jalapeno-chips"],
    "is-clear": ["seven-up", "lime-soda", "grapefruit-soda"],
    "is-refreshing": ["seven-up", "lime-soda", "grapefruit-soda", "water", "coke", "pepsi"],
}
_ITEMS = [o for t in ("fruit", "non-fruit", "soda", "non-soda", "tool") for o in _OBJECTS[t]]
_LOCATIONS = _OBJECTS["location"]
#: the three tasks that start elsewhere: goal -> (facts removed, facts added)
_Facts = list[tuple[str, ...]]
_SPECIAL: dict[str, tuple[_Facts, _Facts]] = {
    "(:goal (not (inventory me coke)))": (
        [("is-empty-handed", "me"), ("at", "coke", "initial")],
        [("inventory", "me", "coke")],
    ),
    "(:goal (not (at jalapeno-chips counter)))": (
        [("at", "jalapeno-chips", "initial")],
        [("at", "jalapeno-chips", "counter")],
    ),
    "(:goal (exists (?i - item) (and (at ?i counter) (is-caffeinated ?i))))": (
        [("at", d, "initial") for d in ("tea", "coke", "pepsi", "redbull")],
        [("at", d, "table") for d in ("tea", "coke", "pepsi", "redbull")],
    ),
}
_DOMAIN = """(define (domain household)
  (:requirements :strips :typing)
  (:types robot location item - object snack drink tool - item
    fruit non-fruit - snack soda non-soda - drink)
  (:predicates (at ?o - object ?l - location) (not-at ?o - object ?l - location)
    (found ?r - robot ?i - item) (inventory ?r - robot ?i - item)
    (not-inventory ?r - robot ?i - item) (visited ?l - location) (not-visited ?l - location)
    (is-in-search ?r - robot) (not-in-search ?r - robot) (is-empty-handed ?r - robot)
    (not-trash ?l - location) (goal-reached))
  (:action find :parameters (?r - robot ?i - item)
    :precondition (and (not-in-search ?r))
    :effect (and (found ?r ?i) (is-in-search ?r) (not (not-in-search ?r))))
  (:action go :parameters (?r - robot ?a - location ?b - location)
    :precondition (and (at ?r ?a))
    :effect (and (at ?r ?b) (not (not-at ?r ?b)) (visited ?b) (not (not-visited ?b))
                 (not (at ?r ?a)) (not-at ?r ?a)))
  (:action pick :parameters (?r - robot ?i - item ?l - location)
    :precondition (and (is-empty-handed ?r) (found ?r ?i) (at ?r ?l) (at ?i ?l) (not-at ?i trash))
    :effect (and (inventory ?r ?i) (not (not-inventory ?r ?i)) (not (is-empty-handed ?r))))
  (:action put :parameters (?r - robot ?i - item ?l - location)
    :precondition (and (at ?r ?l) (inventory ?r ?i))
    :effect (and (at ?i ?l) (not (not-at ?i ?l)) (not (inventory ?r ?i)) (not-inventory ?r ?i)
                 (is-empty-handed ?r) (not (is-in-search ?r)) (not-in-search ?r)))
"""
#: the most conjunctions a goal may ground to
MAX_DISJUNCTS = 400


class _Unreadable(Exception):
    pass


def read_sexpr(text: str) -> SExpr:
    """A PDDL text as nested lists of atoms (``;`` comments dropped)."""
    text = "\n".join(line.split(";")[0] for line in text.split("\n"))
    tokens = re.findall(r"\(|\)|[^\s()]+", text)
    stack: list[list[SExpr]] = [[]]
    for tok in tokens:
        if tok == "(":
            stack.append([])
        elif tok == ")":
            if len(stack) == 1:
                raise _Unreadable("unbalanced ')'")
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(tok.lower())
    if len(stack) != 1 or len(stack[0]) != 1:
        raise _Unreadable("expected one (:goal ...) expression")
    return stack[0][0]


def _objects_of(kind: str) -> list[str]:
    if kind == "object":
        return [o for objs in _OBJECTS.values() for o in objs]
    subs = [t for t, parent in _TYPES.items() if parent == kind]
    return list(_OBJECTS.get(kind, [])) + [o for t in subs for o in _objects_of(t)]


def _typed(params: SExpr) -> list[tuple[str, list[str]]]:
    if not isinstance(params, list):
        raise _Unreadable("expected a list of parameters")
    out: list[tuple[str, list[str]]] = []
    names: list[str] = []
    it = iter(params)
    for tok in it:
        if tok == "-":
            kind = next(it, None)
            if not isinstance(kind, str) or kind not in _TYPES:
                raise _Unreadable(f"unknown type {kind!r}")
            out.extend((n, _objects_of(kind)) for n in names)
            names = []
        elif isinstance(tok, str) and tok.startswith("?"):
            names.append(tok)
        else:
            raise _Unreadable(f"expected a ?variable, got {tok!r}")
    out.extend((n, _objects_of("object")) for n in names)
    return out


Literal = tuple[bool, tuple[str, ...]]  # (positive, atom)
Dnf = list[frozenset[Literal]]


def _ground(expr: SExpr, env: dict[str, str]) -> Dnf:
    """The ground disjunctive normal form of a goal expression (statics decided)."""
    if not isinstance(expr, list) or not expr or not isinstance(expr[0], str):
        raise _Unreadable(f"expected a formula, got {expr!r}")
    op, args = expr[0], expr[1:]
    if op == "and":
        result: Dnf = [frozenset()]
        for a in args:
            result = _bound([x | y for x in result for y in _ground(a, env)])
        return result
    if op == "or":
        return _bound([d for a in args for d in _ground(a, env)])
    if op == "not":
        if len(args) != 1:
            raise _Unreadable("(not ...) takes one formula")
        return _negate(_ground(args[0], env))
    if op in ("exists", "forall"):
        if len(args) != 2:
            raise _Unreadable(f"({op} (vars) formula)")
        params = _typed(args[0])
        parts = [
            _ground(args[1], env | dict(zip([p for p, _ in params], values, strict=True)))
            for values in itertools.product(*[objs for _, objs in params])
        ]
        if op == "exists":
            return _bound([d for p in parts for d in p])
        every: Dnf = [frozenset()]
        for part in parts:
            every = _bound([x | y for x in every for y in part])
        return every
    atom = tuple(env.get(a, a) if isinstance(a, str) else "?" for a in args)
    if any(a.startswith("?") for a in atom):
        raise _Unreadable(f"unbound variable in ({op} ...)")
    if op == "=":
        return [frozenset()] if atom[0] == atom[1] else []
    if op in _STATIC:
        return [frozenset()] if atom and atom[0] in _STATIC[op] else []
    if op not in ("at", "inventory", "visited", "found", "is-empty-handed", "is-in-search"):
        raise _Unreadable(f"unknown predicate {op!r}")
    return [frozenset({(True, (op, *atom))})]


def _negate(dnf: Dnf) -> Dnf:
    result: Dnf = [frozenset()]
    for conj in dnf:
        if not conj:
            return []
        result = _bound([r | {(not pos, atom)} for r in result for pos, atom in conj])
    return result


def _bound(dnf: Dnf) -> Dnf:
    dnf = [c for c in dnf if not any((not pos, atom) in c for pos, atom in c)]  # p and not p
    if len(dnf) > MAX_DISJUNCTS:
        raise _TooComplex(f"the goal grounds to more than {MAX_DISJUNCTS} alternatives")
    return dnf


class _TooComplex(Exception):
    pass


def _init(goal: Dnf) -> set[tuple[str, ...]]:
    facts = {("at", "me", "initial"), ("is-empty-handed", "me"), ("not-in-search", "me")}
    facts |= {("at", i, "initial") for i in _ITEMS}
    for key, (removed, added) in _SPECIAL.items():
        special = read_sexpr(key)
        if isinstance(special, list) and _canonical(_ground(special[1], {})) == _canonical(goal):
            facts -= set(removed)
            facts |= set(added)
    return facts


def _canonical(dnf: Dnf) -> frozenset[frozenset[Literal]]:
    return frozenset(dnf)


def _complete(facts: set[tuple[str, ...]]) -> set[tuple[str, ...]]:
    """The complement predicates of the initial state."""
    out = set(facts)
    for o in ["me", *_ITEMS]:
        out |= {("not-at", o, loc) for loc in _LOCATIONS if ("at", o, loc) not in facts}
    out |= {("not-inventory", "me", i) for i in _ITEMS if ("inventory", "me", i) not in facts}
    out |= {("not-visited", loc) for loc in _LOCATIONS}
    out |= {("not-trash", loc) for loc in _LOCATIONS if loc != "trash"}
    return out


def _literal(lit: Literal) -> str:
    pos, atom = lit
    name = atom[0]
    if not pos:
        if name not in ("at", "inventory", "visited", "is-in-search"):
            raise _TooComplex(f"a negated {name} goal")
        name = "not-in-search" if name == "is-in-search" else f"not-{name}"
    return f"({' '.join((name, *atom[1:]))})"


def _problem(goal: Dnf) -> tuple[str, str]:
    actions = []
    for k, conj in enumerate(goal):
        pre = " ".join(_literal(lit) for lit in sorted(conj)) or ""
        actions.append(
            f"  (:action reach-goal-{k} :parameters ()\n"
            f"    :precondition (and {pre})\n    :effect (and (goal-reached)))"
        )
    domain = _DOMAIN + "\n".join(actions) + "\n)\n"
    objects = " ".join(f"{' '.join(objs)} - {t}" for t, objs in _OBJECTS.items())
    init = " ".join(f"({' '.join(f)})" for f in sorted(_complete(_init(goal))))
    problem = (
        f"(define (problem saycan) (:domain household)\n  (:objects {objects})\n"
        f"  (:init {init})\n  (:goal (and (goal-reached))))\n"
    )
    return domain, problem


def plan_goal(goal_text: str, seconds: float = 20.0) -> list[str]:
    """pyperplan's plan for a SayCan goal (its actions, as ``(find me coke)``)."""
    try:
        from pyperplan import planner
    except ImportError as exc:
        raise ConfigError("SayCan programs need a planner: pip install 'peirce[planning]'") from exc
    expr = read_sexpr(goal_text)
    if not isinstance(expr, list) or len(expr) != 2 or expr[0] != ":goal":
        raise _Unreadable("expected (:goal formula)")
    goal = _ground(expr[1], {})
    if not goal:
        return []
    if any(not conj for conj in goal):
        return ["(reach-goal)"]  # the goal holds before any action
    domain, problem = _problem(goal)
    quiet = logging.root.manager.disable
    logging.disable(logging.INFO)  # pyperplan reports each phase on the root logger
    try:
        with time_bound(seconds, "planning"):
            return _search(planner, domain, problem)
    except Exhausted as exc:
        raise _TooComplex(str(exc)) from None
    finally:
        logging.disable(quiet)


def _search(planner: Any, domain: str, problem: str) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        dpath, ppath = Path(tmp) / "domain.pddl", Path(tmp) / "problem.pddl"
        dpath.write_text(domain, encoding="utf-8")
        ppath.write_text(problem, encoding="utf-8")
        task = planner._ground(planner._parse(str(dpath), str(ppath)))  # search_plan, step by step
    # the operators in one order: pyperplan grounds them from sets, whose order changes with
    # each process's string hashing, and greedy search keeps the first of equal plans
    task.operators.sort(key=lambda op: op.name)
    found = planner.SEARCHES["gbf"](task, planner.HEURISTICS["hff"](task))
    return [op.name for op in found] if found is not None else []


def plan_words(plan: Sequence[str], goal_text: str) -> str:
    """The plan in SayCan's words, as Faithful-CoT's executor writes it."""
    visit = "visited" in goal_text
    steps: list[str] = []
    previous = ""
    for step in plan:
        action, *args = step.strip("()").split()
        if action.startswith("reach-goal"):
            continue
        if action == "go":
            if not visit and previous == "go":
                steps.pop()
            name, arg = "find", args[2]
            if arg == "initial":
                continue
        elif action in ("find", "pick", "put"):
            name, arg = action, args[1]
        else:
            continue
        previous = action
        arg = "7up" if arg == "seven-up" else arg.replace("-", " ")
        steps.append(f"{name}({arg})")
    lines = [f"{i}. {s}" for i, s in enumerate(steps, 1)]
    lines.append(f"{len(steps) + 1}. done().\n")
    return "\n".join(lines)


def simulate(plan: Sequence[str], init: set[tuple[str, ...]]) -> set[tuple[str, ...]] | None:
    """The state after ``plan`` under the household domain as Faithful-CoT wrote it (negative
    preconditions read as such, no complement predicates); None when a step is not applicable."""
    state = set(init)
    for step in plan:
        action, *args = step.strip("()").split()
        if action.startswith("reach-goal"):
            continue
        if action == "find" and ("is-in-search", args[0]) not in state:
            state |= {("found", args[0], args[1]), ("is-in-search", args[0])}
        elif action == "go" and ("at", args[0], args[1]) in state:
            state -= {("at", args[0], args[1])}
            state |= {("at", args[0], args[2]), ("visited", args[2])}
        elif (
            action == "pick"
            and {
                ("is-empty-handed", args[0]),
                ("found", args[0], args[1]),
                ("at", args[0], args[2]),
                ("at", args[1], args[2]),
            }
            <= state
            and ("at", args[1], "trash") not in state
        ):
            state -= {("is-empty-handed", args[0])}
            state |= {("inventory", args[0], args[1])}
        elif (
            action == "put" and {("at", args[0], args[2]), ("inventory", args[0], args[1])} <= state
        ):
            state -= {("inventory", args[0], args[1]), ("is-in-search", args[0])}
            state |= {("at", args[1], args[2]), ("is-empty-handed", args[0])}
        else:
            return None
    return state


def holds(expr: SExpr, state: set[tuple[str, ...]], env: dict[str, str] | None = None) -> bool:
    """Whether a goal formula holds in a state (quantifiers over the problem's objects)."""
    env = env or {}
    if not isinstance(expr, list) or not expr or not isinstance(expr[0], str):
        raise _Unreadable(f"expected a formula, got {expr!r}")
    op, args = expr[0], expr[1:]
    if op == ":goal":
        return holds(args[0], state, env)
    if op == "and":
        return all(holds(a, state, env) for a in args)
    if op == "or":
        return any(holds(a, state, env) for a in args)
    if op == "not":
        return not holds(args[0], state, env)
    if op in ("exists", "forall"):
        params = _typed(args[0])
        names = [p for p, _ in params]
        combos = itertools.product(*[objs for _, objs in params])
        test = (holds(args[1], state, env | dict(zip(names, c, strict=True))) for c in combos)
        return any(test) if op == "exists" else all(test)
    atom = tuple(env.get(a, a) if isinstance(a, str) else "?" for a in args)
    if op == "=":
        return atom[0] == atom[1]
    if op in _STATIC:
        return atom[0] in _STATIC[op]
    return (op, *atom) in state


def plan_valid(plan: Sequence[str], goal_text: str) -> bool:
    """Whether ``plan`` reaches the goal from its initial state (checked without the compiler)."""
    expr = read_sexpr(goal_text)
    if not isinstance(expr, list) or len(expr) != 2:
        return False
    final = simulate(plan, _init(_ground(expr[1], {})))
    return final is not None and holds(expr, final)


def _goal_lines(text: str) -> Iterator[str]:
    for line in text.split("\n"):
        if line and not line.lstrip().startswith(";"):
            yield line.rstrip()


def run_pddl(program: NlslProgram, question: str, limits: Bounds | None) -> ProgramRun:
    """Plan a SayCan goal (see the module docstring)."""
    del question
    goal_text = "\n".join(_goal_lines(program.text))
    seconds = (limits or Bounds()).seconds * 4
    try:
        plan = plan_goal(goal_text, seconds)
    except _Unreadable as exc:
        return ProgramRun(ProgramStatus.UNREADABLE, None, str(exc), (), "pddl")
    except _TooComplex as exc:
        return ProgramRun(ProgramStatus.TOO_COMPLEX, None, str(exc), (), "pddl")
    if not plan:
        return ProgramRun(ProgramStatus.ERROR, None, "no plan reaches the goal", (), "pddl")
    words = plan_words(plan, goal_text)
    if not plan_valid(plan, goal_text):
        reason = "the planner's plan does not reach the goal when simulated"
        return ProgramRun(ProgramStatus.ERROR, None, reason, (), "pddl", plan, words)
    return ProgramRun(ProgramStatus.OK, words, "", (), "pddl", plan, words)
