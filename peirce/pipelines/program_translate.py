"""An LLM translator to Logic-LM's program formats, with repair from the reader's diagnostics.

A model writes the problem as a program in one of the four formats
(:data:`peirce.pipelines.logiclm.FORMATS`: Horn, first-order, constraints, Z3-like), as
Logic-LM's problem formulator does; the program is read and run
(:func:`peirce.pipelines.logiclm.run_program`). A program that cannot be read goes back to the
model with the reader's classified, positioned diagnostic, up to ``repairs`` times (Logic-LM's
self-refinement). A failed call is no answer, never a guess.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from peirce.errors import LLMError
from peirce.llm.complete import complete
from peirce.llm.protocol import ChatClient
from peirce.pipelines.logiclm import RunSettings, run_program
from peirce.programs import ProgramOutcome

__all__ = ["FORMAT_HELP", "ProgramRun", "translate_program"]

#: what each format's sections are (the prompt names them)
FORMAT_HELP = {
    "horn": "Predicates, Facts, Rules and Query sections; facts and rules as Pred($x, bool)",
    "fol": "Predicates, Premises and Conclusion sections; first-order formulas with ::: notes",
    "csp": "Domain, Variables, Constraints and Query sections",
    "z3": "Declarations, Constraints and Options sections",
}


@dataclass(frozen=True, slots=True)
class ProgramRun:
    """A translation run: the outcome of the last program, the program, the calls made (of
    which repairs), and why there is no outcome when a call failed."""

    outcome: ProgramOutcome | None
    program: str
    calls: int
    repairs: int
    error: str | None = None


def translate_program(
    client: ChatClient,
    context: str,
    question: str,
    options: Sequence[str],
    fmt: str,
    *,
    repairs: int = 1,
    settings: RunSettings | None = None,
) -> ProgramRun:
    """Ask for a program in ``fmt``, read and run it, and repair it while it cannot be read."""
    variables = {
        "format_name": fmt,
        "format_help": FORMAT_HELP.get(fmt, fmt),
        "context": context,
        "question": question,
        "options": "\n".join(options),
    }
    try:
        program = complete(client, "logic_program", variables).text
    except LLMError as exc:
        return ProgramRun(None, "", 1, 0, f"the LLM call failed: {exc}")
    calls, done = 1, 0
    outcome = run_program(program, fmt, options, settings)
    while not outcome.parsed and done < repairs and outcome.failure is not None:
        error = outcome.failure.render(program)
        try:
            fixed = complete(
                client, "logic_program_repair", {**variables, "program": program, "error": error}
            ).text
        except LLMError as exc:
            return ProgramRun(outcome, program, calls + 1, done, f"the repair call failed: {exc}")
        calls += 1
        done += 1
        program = fixed
        outcome = run_program(program, fmt, options, settings)
    return ProgramRun(outcome, program, calls, done)
