"""Logic-LM's constraint programs (LogicalDeduction) read into a constraint problem.

A program has four sections::

    Domain:
    1: leftmost                                     what the numbers mean (read as notes)
    Variables:
    green_book [IN] [1, 2, 3, 4, 5]                 a variable and its values
    Constraints:
    blue_book > yellow_book ::: The blue book is to the right of the yellow book.
    AllDifferentConstraint([green_book, blue_book])
    Query:
    A) green_book == 2 ::: The green book is the second from the left.

:func:`read_csp_program` reads it into a :class:`~peirce.constraints.ConstraintProblem` whose
options are ``is_valid`` checks: an option holds when every solution satisfies it (Logic-LM's
reading: the variable takes that one value in all solutions).

>>> program = '''Domain:
... 1: leftmost
... 3: rightmost
... Variables:
... owl [IN] [1, 2, 3]
... hawk [IN] [1, 2, 3]
... Constraints:
... hawk > owl ::: The hawk is to the right of the owl.
... AllDifferentConstraint([owl, hawk])
... Query:
... A) owl == 3
... B) hawk == 1'''
>>> problem = read_csp_program(program).program
>>> [f.name for f in problem.functions], [str(c.expr) for c in problem.constraints]
(['owl', 'hawk'], ['hawk > owl', 'AllDifferentConstraint([owl, hawk])'])
>>> [str(o) for o in problem.options]
['A: is_valid(owl == 3)', 'B: is_valid(hawk == 1)']
"""

from __future__ import annotations

import re

from peirce.constraints import (
    Constraint,
    ConstraintProblem,
    Function,
    ListOf,
    Num,
    OptionCheck,
    Sort,
)
from peirce.programs import FailureKind, ProgramError, ProgramIssue, Reading
from peirce.translators.logiclm_expr import parse_expr
from peirce.translators.logiclm_sections import Line, split_sections

__all__ = ["read_csp_program"]

_HEADERS = ("Domain", "Variables", "Constraints", "Query")
_VARIABLE = re.compile(r"^([A-Za-z_]\w*)\s*\[IN\]\s*(.*)$", re.IGNORECASE)
_OPTION = re.compile(r"^\(?([A-Z])\)\s*(.*)$")


def read_csp_program(text: str) -> Reading[ConstraintProblem]:
    """Read a LogicalDeduction program; a syntax error or a bad variable stops the reader."""
    sections = split_sections(text, _HEADERS)
    for header in ("Variables", "Constraints", "Query"):
        if header not in sections:
            issue = ProgramIssue(FailureKind.SYNTAX, f"no {header} section (expected '{header}:')")
            return Reading(None, issue)
    try:
        sorts, functions = _variables(text, sections["Variables"])
        constraints = tuple(
            Constraint(
                parse_expr(line.code, text, line.start), line.gloss or line.code, line.span(text)
            )
            for line in sections["Constraints"]
        )
        options = tuple(_option(text, line) for line in sections["Query"])
    except ProgramError as exc:
        return Reading(None, exc.issue())
    if not options:
        return Reading(None, ProgramIssue(FailureKind.SYNTAX, "the Query section is empty"))
    return Reading(ConstraintProblem(tuple(sorts), tuple(functions), constraints, options))


def _variables(text: str, lines: list[Line]) -> tuple[list[Sort], list[Function]]:
    sorts: list[Sort] = []
    by_values: dict[tuple[str, ...], str] = {}
    functions: list[Function] = []
    for line in lines:
        m = _VARIABLE.match(line.code)
        if m is None:
            raise ProgramError(
                FailureKind.SYNTAX,
                "cannot read the variable (expected e.g. green_book [IN] [1, 2, 3])",
                text=text,
                span=line.span(text),
            )
        domain = parse_expr(m.group(2), text, line.start + m.start(2))
        if not isinstance(domain, ListOf) or not domain.items:
            raise ProgramError(
                FailureKind.SYNTAX,
                f"the values of {m.group(1)} must be a list, e.g. [1, 2, 3]",
                text=text,
                span=domain.span,
            )
        values: list[str] = []
        for item in domain.items:
            if not isinstance(item, Num):
                raise ProgramError(
                    FailureKind.UNSUPPORTED,
                    f"the values of {m.group(1)} must be numbers (positions), got {item}",
                    text=text,
                    span=item.span,
                )
            values.append(str(item.value))
        key = tuple(values)
        if key not in by_values:
            name = "values" if not sorts else f"values_{len(sorts) + 1}"
            by_values[key] = name
            sorts.append(Sort(name, key, numeric=True, span=domain.span))
        functions.append(Function(m.group(1), (), by_values[key], span=line.span(text)))
    return sorts, functions


def _option(text: str, line: Line) -> OptionCheck:
    m = _OPTION.match(line.code)
    if m is None:
        raise ProgramError(
            FailureKind.SYNTAX,
            "an option starts with its letter, e.g. A) green_book == 2",
            text=text,
            span=line.span(text),
        )
    expr = parse_expr(m.group(2), text, line.start + m.start(2))
    return OptionCheck(m.group(1), "is_valid", (expr,), span=line.span(text))
