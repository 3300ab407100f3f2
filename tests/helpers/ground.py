"""Generated Datalog programs and questions, for the tests that hold the least model's answers,
the compiled core and Prolog equal (``test_ground_ask.py``, ``test_ground_core.py``)."""

from __future__ import annotations

import random

from peirce.logic import Clause, Const, Literal, Var

__all__ = ["NAMES", "UNARY", "deep_program", "random_goals", "random_program"]

X, Y, Z = Var("X"), Var("Y"), Var("Z")
NAMES = [Const(f"c{i}") for i in range(5)]
UNARY = [f"p{i}" for i in range(7)]


def random_program(rng: random.Random) -> list[Clause]:
    """Facts, rules of one variable, rules with a variable only in the body (``p(X) :- e(X, Y),
    q(Y)``), a transitive rule, ground rules (of one body literal or several), and sometimes a
    chain deeper than 16 with shortcuts (iterative deepening then doubles its bound past the
    shallowest proof)."""
    clauses: list[Clause] = []
    for _ in range(rng.randint(3, 12)):
        if rng.random() < 0.6:
            lit = Literal(rng.choice(UNARY), (rng.choice(NAMES),), negated=rng.random() < 0.15)
        else:
            lit = Literal("e", (rng.choice(NAMES), rng.choice(NAMES)), negated=rng.random() < 0.1)
        clauses.append(Clause(lit, label=f"fact {len(clauses)}"))
    for _ in range(rng.randint(2, 12)):
        kind = rng.random()
        neg = rng.random() < 0.2
        if kind < 0.25:
            rule = Clause(Literal("e", (X, Z)), (Literal("e", (X, Y)), Literal("e", (Y, Z))))
        elif kind < 0.45:
            body = (Literal("e", (X, Y)), Literal(rng.choice(UNARY), (Y,)))
            rule = Clause(Literal(rng.choice(UNARY), (X,), negated=neg), body)
        elif kind < 0.55:
            body = (Literal(rng.choice(UNARY), (X,)),)
            rule = Clause(Literal(rng.choice(UNARY), (rng.choice(NAMES),)), body)
        elif kind < 0.6:
            body = (Literal(rng.choice(UNARY), (rng.choice(NAMES),)),)
            rule = Clause(Literal(rng.choice(UNARY), (rng.choice(NAMES),), negated=neg), body)
        elif kind < 0.65:  # a ground rule of several body literals
            body = tuple(
                Literal(rng.choice(UNARY), (rng.choice(NAMES),), negated=rng.random() < 0.15)
                if rng.random() < 0.7
                else Literal("e", (rng.choice(NAMES), rng.choice(NAMES)))
                for _ in range(rng.randint(2, 3))
            )
            rule = Clause(Literal(rng.choice(UNARY), (rng.choice(NAMES),), negated=neg), body)
        else:
            body = tuple(
                Literal(rng.choice(UNARY), (X,), negated=rng.random() < 0.15)
                for _ in range(rng.randint(1, 3))
            )
            rule = Clause(Literal(rng.choice(UNARY), (X,), negated=neg), body)
        at = rng.randrange(len(clauses) + 1)
        clauses.insert(at, Clause(rule.head, rule.body, label=f"rule {len(clauses)}"))
    if rng.random() < 0.35:
        clauses.append(Clause(Literal("q0", (NAMES[0],)), label="q start"))
        for i in range(rng.randint(15, 40)):
            step = Clause(Literal(f"q{i + 1}", (X,)), (Literal(f"q{i}", (X,)),), label=f"q {i}")
            clauses.insert(rng.randrange(len(clauses) + 1), step)
            if rng.random() < 0.25:
                j = rng.randint(0, i)
                skip = (Literal(f"q{j}", (X,)),)
                clauses.append(Clause(Literal(f"q{i + 1}", (X,)), skip, label=f"q {j}..{i}"))
            if rng.random() < 0.2:  # a loop back: the ancestor check cuts it
                j = rng.randint(0, i)
                back = Clause(Literal(f"q{j}", (X,)), (Literal(f"q{i + 1}", (X,)),), label="back")
                clauses.insert(rng.randrange(len(clauses) + 1), back)
    return clauses


def random_goals(clauses: list[Clause], rng: random.Random, n: int) -> list[Literal]:
    preds = sorted({c.head.predicate for c in clauses if c.head.predicate != "e"} | {"p0"})
    preds = [p for p in preds if not p.startswith("q")] + rng.sample(
        [p for p in preds if p.startswith("q")], min(6, sum(p.startswith("q") for p in preds))
    )
    goals = [Literal(p, (c,), negated=s) for p in preds for c in NAMES for s in (False, True)]
    goals += [Literal("e", (a, b), negated=rng.random() < 0.2) for a in NAMES for b in NAMES]
    return rng.sample(goals, min(n, len(goals)))


def deep_program(rng: random.Random) -> tuple[list[Clause], int]:
    """A chain of 40 to 120 levels (past the 32 levels whose ancestors ``kb/meta.pl`` keeps in a
    list: deeper ground ancestors are hashed), with shortcuts, loops back, and conjunctions
    ``q(i+1) :- q(i), s(i)`` where ``s(i) :- q(i)`` (three): the second goal's proof needs the first
    goal again, which is an ancestor only while its own proof is being searched."""
    a = Const("a")
    n = rng.randint(40, 120)
    clauses = [Clause(Literal("q0", (a,)), label="start")]
    both = set(rng.sample(range(n), 3))  # (each doubles the proofs above it)
    for i in range(n):
        head = Literal(f"q{i + 1}", (X,))
        if i in both:
            s = Literal(f"s{i}", (X,))
            clauses.append(Clause(head, (Literal(f"q{i}", (X,)), s), label=f"q{i} and s{i}"))
            clauses.insert(
                rng.randrange(len(clauses) + 1),
                Clause(s, (Literal(f"q{i}", (X,)),), label=f"s{i}"),
            )
        else:
            clauses.append(Clause(head, (Literal(f"q{i}", (X,)),), label=f"q{i}"))
        if rng.random() < 0.2:  # a loop back, tried first: the ancestor check cuts it
            j = rng.randint(0, i)
            back = Clause(Literal(f"q{j}", (X,)), (Literal(f"q{i + 1}", (X,)),), label="back")
            clauses.insert(rng.randrange(len(clauses) + 1), back)
        if rng.random() < 0.05:  # a shortcut of a few levels (the proof stays deep)
            j = rng.randint(max(0, i - 3), i)
            skip = Clause(head, (Literal(f"q{j}", (X,)),), label=f"q{j}..{i}")
            clauses.insert(rng.randrange(len(clauses) + 1), skip)
    return clauses, n
