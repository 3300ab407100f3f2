"""Logic-LM's first-order programs (FOLIO) read through the FOL layer's formula reader.

A program has three sections::

    Predicates:
    Perform(x) ::: x performs in school talent shows often.
    Premises:
    ∀x (Perform(x) → Attend(x)) ::: If people perform ..., then they attend ...
    Conclusion:
    Perform(bonnie) ::: Bonnie performs in school talent shows often.

:func:`read_fol_program` cuts the program into its formulas and hands them to
:func:`peirce.translators.fol.read_problem`; every diagnostic comes back positioned in the
program text. Logic-LM ran these programs in Prover9, where a variable left free (``x`` in
``Perform(x) → Attend(x)``) is universally quantified; the reader follows that convention (with a
warning naming the variable) rather than reading ``x`` as a constant. A predicate used in a
formula but not declared is a warning, and so is a line after the conclusion's (Logic-LM read the
first line; so does this reader).

>>> program = '''Predicates:
... Cat(x) ::: x is a cat.
... Mammal(x) ::: x is a mammal.
... Premises:
... Cat(x) → Mammal(x) ::: Cats are mammals.
... Cat(tom) ::: Tom is a cat.
... Conclusion:
... Mammal(tom) ::: Tom is a mammal.'''
>>> reading = read_fol_program(program)
>>> [str(p) for p in reading.program.premises], str(reading.program.conclusion)
(['∀x (Cat(x) → Mammal(x))', 'Cat(tom)'], 'Mammal(tom)')
>>> print(reading.warnings[0].render(program))
syntax: line 5, column 1: 'x' is free: read as ∀x (Prover9's convention for free variables)
  Cat(x) → Mammal(x) ::: Cats are mammals.
  ^^^^^^^^^^^^^^^^^^
>>> print(read_fol_program("Premises:\\nP(a) ∧\\nConclusion:\\nP(a)").failure.render())
syntax: line 2, column 7: the formula ends too early (expected ...)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from peirce.fol import Problem
from peirce.programs import FailureKind, ProgramIssue, Reading
from peirce.results import Diagnostic, Severity
from peirce.span import Span
from peirce.translators.fol import read_problem
from peirce.translators.logiclm_sections import Line, split_sections

__all__ = ["read_fol_program"]

_HEADERS = ("Predicates", "Premises", "Conclusion")
_FREE = re.compile(r"'([uvwxyz])' is bound by no quantifier")
_KINDS = {
    "arity": FailureKind.ARITY,
    "unsupported": FailureKind.UNSUPPORTED,
}


@dataclass(frozen=True, slots=True)
class _Formula:
    line: Line
    text: str  # as handed to the FOL reader
    prefix: int  # characters added in front of the line's code (a ∀ for free variables)


def read_fol_program(text: str) -> Reading[Problem]:
    """Read a FOLIO program; a formula that cannot be read (or an arity clash) is the failure."""
    sections = split_sections(text, _HEADERS)
    for header in ("Premises", "Conclusion"):
        if not sections.get(header):
            issue = ProgramIssue(FailureKind.SYNTAX, f"no {header} section (expected '{header}:')")
            return Reading(None, issue)
    warnings: list[ProgramIssue] = []
    for extra in sections["Conclusion"][1:]:
        warnings.append(
            ProgramIssue(
                FailureKind.SYNTAX,
                "the Conclusion is its first line: this line is left out",
                extra.span(text),
            )
        )
    formulas = [_Formula(line, line.code, 0) for line in sections["Premises"]]
    formulas.append(_Formula(sections["Conclusion"][0], sections["Conclusion"][0].code, 0))
    reading = read_problem([f.text for f in formulas[:-1]], formulas[-1].text)
    free = _free_variables(reading.diagnostics, len(formulas))
    if free:
        for i, names in free.items():
            f = formulas[i]
            prefix = "".join(f"∀{v} " for v in names)
            formulas[i] = _Formula(f.line, f"{prefix}({f.text})", len(prefix) + 1)
            quantified = ", ".join(f"∀{v}" for v in names)
            warnings.append(
                ProgramIssue(
                    FailureKind.SYNTAX,
                    f"{', '.join(repr(v) for v in names)} is free: read as {quantified} "
                    "(Prover9's convention for free variables)",
                    f.line.span(text),
                )
            )
        reading = read_problem([f.text for f in formulas[:-1]], formulas[-1].text)
    failure: ProgramIssue | None = None
    for d in reading.diagnostics:
        issue = _issue(text, d, formulas)
        if d.severity is Severity.ERROR and failure is None:
            failure = issue
        elif d.severity is not Severity.ERROR and not _FREE.search(d.message):
            warnings.append(issue)
    warnings.extend(_undeclared(text, sections.get("Predicates", []), formulas))
    if failure is not None or reading.problem is None:
        failure = failure or ProgramIssue(FailureKind.SYNTAX, "the formulas could not be read")
        return Reading(None, failure, tuple(warnings))
    return Reading(reading.problem, None, tuple(warnings))


def _index(location: str | None, n: int) -> int:
    if location == "conclusion":
        return n - 1
    if location and location.startswith("premise "):
        return int(location.split()[1]) - 1
    return -1


def _free_variables(diagnostics: tuple[Diagnostic, ...], n: int) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for d in diagnostics:
        m = _FREE.search(d.message)
        i = _index(d.location, n)
        if m is not None and i >= 0 and m.group(1) not in out.get(i, []):
            out.setdefault(i, []).append(m.group(1))
    return out


def _issue(text: str, d: Diagnostic, formulas: list[_Formula]) -> ProgramIssue:
    i = _index(d.location, len(formulas))
    kind = _KINDS.get(d.code, FailureKind.SYNTAX)
    if i < 0:
        return ProgramIssue(kind, d.message)
    f = formulas[i]
    where = "the conclusion" if i == len(formulas) - 1 else f"premise {i + 1}"
    message = d.message if d.location else f"{where}: {d.message}"
    if d.span is None:
        return ProgramIssue(kind, message, f.line.span(text))
    lo = max(0, min(len(f.line.code), d.span.start - f.prefix))
    hi = max(lo, min(len(f.line.code), d.span.end - f.prefix))
    return ProgramIssue(kind, message, Span.at(text, f.line.start + lo, f.line.start + hi))


def _undeclared(text: str, declared: list[Line], formulas: list[_Formula]) -> list[ProgramIssue]:
    if not declared:
        return []
    names = set()
    for line in declared:
        m = re.match(r"\s*([^\s(]+)\s*\(", line.code)
        if m is not None:
            names.add(m.group(1))
    out = []
    seen: set[str] = set()
    for f in formulas:
        for m in re.finditer(r"(?<![∀∃\w])([^\W\d]\w*)\s*\(", f.line.code):
            name = m.group(1)
            before = f.line.code[: m.start(1)].rstrip()
            if before.endswith(("∀", "∃")) or before.endswith(("all", "exists")):
                continue
            if name not in names and name not in seen:
                seen.add(name)
                out.append(
                    ProgramIssue(
                        FailureKind.UNDECLARED,
                        f"predicate {name!r} is not declared in Predicates",
                        Span.at(text, f.line.start + m.start(1), f.line.start + m.end(1)),
                    )
                )
    return out
