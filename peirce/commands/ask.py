"""Answer a question True / False / Unknown from a context, with the proof.

The context is controlled English, given inline (--context) or in a file (--context-file; ``-``
reads standard input). With an LLM endpoint configured, a question the controlled English leaves
open because some sentences were not translated goes to the LLM translator (``--samples``
first-order translations run in Z3 and voted). Exit status 0 whatever the answer; 1 when the
context is empty or not UTF-8; 2 when the file cannot be read.

Examples:
  peirce ask --context "Every cat is an animal. Tom is a cat." "Tom is an animal."
  peirce ask --context-file context.txt "Is the following statement true or false? Max is sour."
"""

from __future__ import annotations

import argparse

from peirce import serde
from peirce.cli import integer_at_least
from peirce.errors import InputError
from peirce.records import read_text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "question", help='e.g. "Is the following statement true or false? Max is sour."'
    )
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--context", help="the context as text")
    group.add_argument("--context-file", help="a file holding the context")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument(
        "--samples",
        type=integer_at_least(1),
        default=5,
        help="translations an LLM writes where the controlled English leaves the question open "
        "(with OPENAI_BASE_URL / PEIRCE_MODEL set; default 5)",
    )


def run(args: argparse.Namespace) -> int:
    from peirce.pipelines.proofs import ask

    context = args.context if args.context is not None else read_text(args.context_file)
    if not context.strip():
        raise InputError("the context is empty", expected="controlled-English sentences")
    from peirce.config import llm_settings

    client = None
    if llm_settings().configured:
        from peirce.cli import watch_llm
        from peirce.llm import LLMClient

        client = watch_llm(LLMClient.from_env())
    result = ask(context, args.question, client=client, samples=args.samples)
    if args.json:
        print(serde.dumps(result))
        return 0
    print(f"{result.answer.value}  ({result.goal or 'untranslated'})")
    if result.proof is not None:
        print(result.proof.render("  "))
    elif result.reason:
        print(f"  {result.reason}")
    for d in result.diagnostics:
        print(f"  ! {d.render(context)}")
    return 0
