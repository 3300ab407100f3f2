"""Logic-LM's Z3-like language (AR-LSAT programs), read into a constraint problem — never run.

A program has three sections::

    # Declarations
    children = EnumSort([Fred, Juan, Marc])        a finite sort (numbers make a numeric sort)
    boys = EnumSort([Fred, Juan])                   members of an earlier sort: a sub-sort
    assigned = Function([children] -> [lockers])    a function (also ``[int]``, ``[bool]``)
    ForAll([c:children], 1 <= rank(c))              any other line: a constraint
    # Constraints
    assigned(Fred) == 3 ::: Fred must be assigned to locker 3
    # Options
    Question ::: ...                                skipped
    is_valid(assigned(Juan) == 5) ::: (A)           one check per option, tagged with its letter

:func:`read_z3_program` reads it into a :class:`~peirce.constraints.ConstraintProblem` (names,
arities and sorts are checked by the engine when it builds the terms). Unlike Logic-LM's own
runner, which rewrote the lines into Python and executed them, the lines here are parsed; where
Logic-LM lost a program whose meaning is clear, the reader keeps it: constraints written among
the declarations are kept (Logic-LM dropped them), ``&``/``|``/``&&`` are read as ``And``/``Or``,
``AtLeastOne`` as ``Exists``, ``is_false`` as ``is_unsat``.

>>> program = '''# Declarations
... people = EnumSort([Vladimir, Wendy])
... meals = EnumSort([breakfast, lunch])
... foods = EnumSort([fish, omelet])
... eats = Function([people, meals] -> [foods])
... # Constraints
... ForAll([m:meals], eats(Vladimir, m) != eats(Wendy, m)) ::: never the same food
... eats(Wendy, lunch) == omelet ::: Wendy eats an omelet for lunch
... # Options
... Question ::: What does Vladimir eat for lunch?
... is_valid(eats(Vladimir, lunch) == fish) ::: (A)
... is_valid(eats(Vladimir, lunch) == omelet) ::: (B)'''
>>> reading = read_z3_program(program)
>>> [s.name for s in reading.program.sorts], [f.name for f in reading.program.functions]
(['people', 'meals', 'foods'], ['eats'])
>>> [str(o) for o in reading.program.options]
['A: is_valid(eats(Vladimir, lunch) == fish)', 'B: is_valid(eats(Vladimir, lunch) == omelet)']
>>> bad = "# Declarations\\nx = EnumSort([a, b)\\n# Constraints\\n# Options"
>>> read_z3_program(bad).failure.render()
"syntax: line 2, column 19: unexpected ')' (expected ',' or ']')"
"""

from __future__ import annotations

import re

from peirce.constraints import (
    CHECKS,
    Call,
    Constraint,
    ConstraintProblem,
    Expr,
    Function,
    ListOf,
    Name,
    Num,
    Op,
    OptionCheck,
    Sort,
)
from peirce.programs import FailureKind, ProgramError, ProgramIssue, Reading
from peirce.span import Span
from peirce.translators.logiclm_expr import parse_expr
from peirce.translators.logiclm_sections import Line, split_sections

__all__ = ["read_z3_program"]

_HEADERS = ("Declarations", "Constraints", "Options")
_ASSIGN = re.compile(r"^([A-Za-z_]\w*)\s*=(?!=)\s*(.*)$")
_LETTER = re.compile(r"^\(?\s*([A-Ea-e])\s*\)")
_ALIASES = {"is_false": "is_unsat"}


def read_z3_program(text: str) -> Reading[ConstraintProblem]:
    """Read an AR-LSAT program; a syntax error or a malformed declaration is the failure.

    Slips read past with a warning: ``is_sat(p, q)`` (several constraints: their conjunction,
    as Z3's ``Solver.add`` takes them) and ``is_min(E, k)`` (``is_min(E == k)``).
    """
    sections = split_sections(text, _HEADERS)
    warnings: list[ProgramIssue] = []
    missing = [h for h in _HEADERS if h not in sections]
    if missing:
        return Reading(
            None,
            ProgramIssue(
                FailureKind.SYNTAX,
                f"no '# {missing[0]}' section (expected # Declarations, # Constraints, # Options)",
            ),
        )
    try:
        sorts, functions, early = _declarations(text, sections["Declarations"], warnings)
        constraints = early + [_constraint(text, line) for line in sections["Constraints"]]
        options = _options(text, sections["Options"], warnings)
    except ProgramError as exc:
        return Reading(None, exc.issue(), tuple(warnings))
    if not options:
        return Reading(None, ProgramIssue(FailureKind.SYNTAX, "the # Options section is empty"))
    problem = ConstraintProblem(tuple(sorts), tuple(functions), tuple(constraints), tuple(options))
    return Reading(problem, None, tuple(warnings))


def _strip_comment(line: Line) -> Line:
    cut = line.code.find("#")
    if cut <= 0:
        return line
    return Line(line.code[:cut].rstrip(), line.start, line.gloss, line.header)


def _declarations(
    text: str, lines: list[Line], warnings: list[ProgramIssue]
) -> tuple[list[Sort], list[Function], list[Constraint]]:
    sorts: list[Sort] = []
    functions: list[Function] = []
    constraints: list[Constraint] = []
    owner: dict[str, str] = {}  # member -> the sort that declared it
    for raw in lines:
        line = _strip_comment(raw)
        m = _ASSIGN.match(line.code)
        if m is None:
            constraints.append(_constraint(text, line))
            continue
        name, rhs = m.group(1), m.group(2)
        base = line.start + m.start(2)
        if re.match(r"Function\s*\(", rhs):
            functions.append(_function(text, name, rhs, base))
            continue
        value = parse_expr(rhs, text, base)
        if isinstance(value, ListOf):  # a named list of members: a sub-sort
            value = Call("EnumSort", (value,), value.span)
        if isinstance(value, Call) and value.func in ("EnumSort", "IntSort", "Set"):
            sorts.append(_sort(text, name, value, owner, sorts))
        else:
            raise ProgramError(
                FailureKind.UNSUPPORTED,
                f"'{name} = ...' declares neither a sort (EnumSort) nor a function (Function)",
                text=text,
                span=line.span(text),
            )
    return sorts, functions, constraints


def _sort(text: str, name: str, call: Call, owner: dict[str, str], earlier: list[Sort]) -> Sort:
    if len(call.args) != 1 or not isinstance(call.args[0], ListOf):
        raise ProgramError(
            FailureKind.SYNTAX,
            f"{call.func} takes one list of members, e.g. {call.func}([a, b, c])",
            text=text,
            span=call.span,
        )
    members: list[str] = []
    for item in call.args[0].items:
        if isinstance(item, Num):
            members.append(str(item.value))
        elif isinstance(item, Name):
            members.append(item.id)
        else:
            raise ProgramError(
                FailureKind.SYNTAX,
                f"a member of sort {name!r} must be a name or a number, got {item}",
                text=text,
                span=item.span,
            )
    if len(set(members)) != len(members):
        raise ProgramError(
            FailureKind.TYPE, f"sort {name!r} lists a member twice", text=text, span=call.span
        )
    numeric = all(re.fullmatch(r"-?\d+", m) for m in members)
    if call.func == "IntSort" and not numeric:
        raise ProgramError(
            FailureKind.TYPE, f"IntSort {name!r} must list integers", text=text, span=call.span
        )
    if numeric:
        return Sort(name, tuple(members), numeric=True, span=call.span)
    if any(re.fullmatch(r"-?\d+", m) for m in members):
        raise ProgramError(
            FailureKind.TYPE,
            f"sort {name!r} mixes numbers and names",
            text=text,
            span=call.span,
        )
    old = {owner[m] for m in members if m in owner}
    if not old:
        for m in members:
            owner[m] = name
        return Sort(name, tuple(members), span=call.span)
    fresh = [m for m in members if m not in owner]
    if len(old) == 1 and not fresh:
        parent = old.pop()
        root = next(s for s in earlier if s.name == parent)
        return Sort(name, tuple(members), parent=root.parent or root.name, span=call.span)
    raise ProgramError(
        FailureKind.TYPE,
        f"sort {name!r} repeats members of {', '.join(sorted(old))}"
        + (f" and adds new ones ({', '.join(fresh)})" if fresh else "")
        + ": a sub-sort must list members of one earlier sort only",
        text=text,
        span=call.span,
    )


def _function(text: str, name: str, rhs: str, base: int) -> Function:
    m = re.fullmatch(r"Function\s*\((.*)\)\s*", rhs)
    inner = m.group(1) if m else ""
    if "->" in inner:
        left, _, right = inner.partition("->")
        params = _sort_names(left)
        result = _sort_names(right)
    else:
        names = _sort_names(inner)
        params, result = names[:-1], names[-1:]
    if len(result) > 1:
        raise ProgramError(
            FailureKind.UNSUPPORTED,
            f"function {name!r} has {len(result)} result sorts ({', '.join(result)}): a function "
            "has one; declare one function per result",
            text=text,
            span=_span(text, base, len(rhs)),
        )
    if len(result) != 1 or not all(re.fullmatch(r"[A-Za-z_]\w*", p) for p in (*params, *result)):
        raise ProgramError(
            FailureKind.SYNTAX,
            f"cannot read the declaration of function {name!r}: expected "
            "Function([sort, ...] -> [sort])",
            text=text,
            span=_span(text, base, len(rhs)),
        )
    return Function(name, tuple(params), result[0], span=_span(text, base, len(rhs)))


def _sort_names(part: str) -> list[str]:
    return [p.strip() for p in part.replace("[", " ").replace("]", " ").split(",") if p.strip()]


def _span(text: str, start: int, length: int) -> Span:
    return Span.at(text, start, start + length)


def _constraint(text: str, line: Line) -> Constraint:
    line = _strip_comment(line)
    expr = parse_expr(line.code, text, line.start)
    return Constraint(expr, line.gloss or line.code, line.span(text))


def _options(text: str, lines: list[Line], warnings: list[ProgramIssue]) -> list[OptionCheck]:
    out: list[OptionCheck] = []
    letters = "ABCDE"
    for line in lines:
        if re.match(r"^Question\b", line.code):
            continue
        tag = _LETTER.match(line.gloss)
        letter = tag.group(1).upper() if tag else letters[min(len(out), len(letters) - 1)]
        expr = parse_expr(line.code, text, line.start)
        out.append(_check(text, letter, expr, warnings))
    return out


def _check(text: str, letter: str, expr: Expr, warnings: list[ProgramIssue]) -> OptionCheck:
    if not isinstance(expr, Call) or _ALIASES.get(expr.func, expr.func) not in CHECKS:
        raise ProgramError(
            FailureKind.UNSUPPORTED,
            f"an option must be a check ({', '.join(sorted(CHECKS))}), got {_head(expr)}",
            text=text,
            span=expr.span,
        )
    check = _ALIASES.get(expr.func, expr.func)
    if check == "is_exception":
        arg = expr.args[0] if len(expr.args) == 1 else None
        if not isinstance(arg, Call) or arg.func in ("is_exception",) or arg.func not in CHECKS:
            raise ProgramError(
                FailureKind.UNSUPPORTED,
                "is_exception(...) must wrap one check, e.g. is_exception(is_sat(...)): "
                "the option it marks as the exception is otherwise unclear",
                text=text,
                span=expr.span,
            )
        inner = _check(text, letter, arg, warnings)
        return OptionCheck(letter, "is_exception", (), inner, span=expr.span)
    args = expr.args
    if check in ("is_sat", "is_valid", "is_unsat", "is_determined") and len(args) > 1:
        warnings.append(
            ProgramIssue(
                FailureKind.ARITY,
                f"{check} takes one constraint, got {len(args)}: read as their conjunction",
                expr.span,
            )
        )
        args = (Call("And", args, expr.span),)
    if check in ("is_min", "is_max") and len(args) == 2:
        warnings.append(
            ProgramIssue(
                FailureKind.ARITY,
                f"{check}(E, k) read as {check}(E == k)",
                expr.span,
            )
        )
        args = (Op("==", args, expr.span),)
    expr = Call(expr.func, args, expr.span)
    wanted = {"is_accurate_list": (1, 1), "is_equivalent": (1, 2)}.get(check, (1, 1))
    if not wanted[0] <= len(expr.args) <= wanted[1]:
        raise ProgramError(
            FailureKind.ARITY,
            f"{check} takes {wanted[0]}"
            + (f" or {wanted[1]}" if wanted[1] != wanted[0] else "")
            + f" argument(s), got {len(expr.args)}",
            text=text,
            span=expr.span,
        )
    if check == "is_accurate_list" and not isinstance(expr.args[0], ListOf):
        raise ProgramError(
            FailureKind.TYPE,
            "is_accurate_list takes a list of constraints, e.g. is_accurate_list([p, q])",
            text=text,
            span=expr.args[0].span,
        )
    return OptionCheck(letter, check, expr.args, span=expr.span)


def _head(expr: Expr) -> str:
    return f"{expr.func}(...)" if isinstance(expr, Call) else str(expr)
