"""Run peirce on the bundled examples, offline: proof checking, a question, a knowledge base, a
chain of thought as a model writes it through the verify-before-display gate.

Everything runs symbolically; no LLM endpoint is needed or used.

Examples:
  peirce demo
  peirce demo --proofs                         with the proof tree of each step
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

    print("\n== The verify-before-display gate: model replies, shown only when they verify ==")
    _gate_demo()
    return 0


_PREMISES = (
    "Gwen is tall. Gwen is calm. If someone is tall and calm then they are kind. "
    "If someone is kind then they are happy."
)
_REPLIES = (
    "Let's think step by step. We want to evaluate if Gwen is happy. Gwen is tall and calm "
    "(premises 1 and 2), so Gwen is kind (premise 3). So Gwen is happy.\nANSWER: True",
    "Gwen is tall. Gwen is rich, so Gwen is happy.\nANSWER: True",
    "Gwen is tall. Gwen is not kind. So Gwen is not happy.\nANSWER: False",
)


def _gate_demo() -> None:
    from peirce.pipelines.gate import Gate, Policy

    print(f"premises: {_PREMISES}")
    with Gate.from_text(_PREMISES) as gate:
        for reply in _REPLIES:
            d = gate.check(reply, question="Gwen is happy.")
            print(f"\nreply: {reply!r}")
            print(f"  {d.action.value.upper()}: {d.reason}")
            for s in d.steps:
                if s.finding.value not in ("entailed", "no_claim"):
                    print(f"    step {s.index} {s.finding.value}: {s.text.strip()!r} ({s.reason})")
        d = gate.check(
            _REPLIES[2],
            question="Gwen is happy.",
            policy=Policy(repair=True, answer_from_proof=True),
        )
        print(f"\nthe last reply with repair allowed: {d.action.value.upper()} ({d.repaired_from})")
        print("  " + (d.text or "").replace("\n", "\n  "))


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
