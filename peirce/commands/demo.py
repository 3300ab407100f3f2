"""Run peirce on the bundled examples, offline: proof checking, a question, a knowledge base.

Everything runs symbolically; no LLM endpoint is needed or used.
"""

from __future__ import annotations

import argparse
import importlib.resources

from peirce.commands.check import render
from peirce.pipelines.proofs import ask, check_proof

_CONTEXT = (
    "Jompuses are not shy. Each yumpus is a dumpus. Dumpuses are wumpuses. Every wumpus is an "
    "impus. Impuses are not sour. Numpuses are sour. Max is a yumpus."
)
_CHAIN = [
    "Max is a yumpus.",
    "Each yumpus is a dumpus.",
    "Max is a dumpus.",
    "Max is a wumpus.",
    "Every wumpus is an impus.",
    "Max is an impus.",
    "Impuses are numpuses.",
    "Max is a numpus.",
    "Max is sour.",
]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--proofs", action="store_true", help="print proof trees")


def run(args: argparse.Namespace) -> int:
    print("== A chain of reasoning, checked step by step ==")
    print(f"context: {_CONTEXT}\n")
    report = check_proof(_CONTEXT, _CHAIN)
    print(render(report, proofs=args.proofs))

    print("\n== Questions, answered True / False / Unknown with a proof ==")
    for question in ("Max is sour.", "Max is a wumpus.", "Max is shy."):
        result = ask(_CONTEXT, question)
        print(f"{question:<20} {result.answer.value}")
        if result.proof is not None:
            print(result.proof.render("    "))
        else:
            print(f"    {result.reason}")

    print("\n== Bundled knowledge base: kinship rules with proofs ==")
    _kinship_demo()
    return 0


def _kinship_demo() -> None:
    from peirce.engine.prolog import KnowledgeBase, load_pl_text
    from peirce.logic import Const, Literal, Var

    text = (importlib.resources.files("peirce.kb") / "kinship.pl").read_text(encoding="utf-8")
    with KnowledgeBase(load_pl_text(text, source="kinship.pl"), builtins=True) as kb:
        goal = Literal("grandparent", (Var("X"), Const("ada")))
        for bindings, proof in kb.solve(goal, limit=5):
            shown = ", ".join(f"{k} = {v}" for k, v in bindings.items())
            print(f"?- {goal}.   {shown}")
            print(proof.render("    "))
        for lit in (
            Literal("parent", (Const("barbara"), Const("claude")), negated=True),
            Literal("parent", (Const("alan"), Const("ada"))),
        ):
            judgement = kb.ask(lit)
            print(f"{lit}: {judgement.verdict.value}")
            if judgement.proof is not None:
                print(judgement.proof.render("    "))
            else:
                print(f"    {judgement.reason}")
