"""A Prolog query console over a knowledge base: answers with their proof trees.

Queries are typed as Prolog goals (``?- grandparent(X, bob).``, the ``?-`` and the full stop are
optional) and run through peirce's meta-interpreter with limits, so every answer comes with the
proof that supports it. Everything typed or loaded is read as data: a directive in a file is
reported and skipped, never run, and a query may call only the knowledge base's own relations,
a whitelist of pure built-ins (``=``, ``\\=``, ``is``, ``<``, ``member``, ``between``, ...),
Prolog's control constructs (``;``, ``->``, ``*->``, ``\\+``, ``!``, ``findall/3``, ``setof/3``,
``forall/2``, ``aggregate_all/3``, ``call/N``, ``phrase/2,3``) and the safe libraries
(``library(lists)``, ``maplist``, ``foldl``, atoms and strings, ``format/1,2``), run as SWI-Prolog
runs them (every answer in its order; ``kb/control.pl``). A proof says which branch was taken
and why; ``\\+ G`` is "no proof of G", negation as failure under the program's closed world.

Kept whole (past 400 lines): the console is one loop over one knowledge base; its commands, its
printing of terms and its reading of input share the session's state.

Commands::

    :help               this text
    :list [NAME]        the clauses (of relation NAME)
    :add CLAUSE.        add a clause, e.g.  :add parent(ann, bob).
    :load FILE          load a .pl program or a .txt file of controlled English
    :ask GOAL.          True / False / Unknown (open world, strong negation) with the proof
    :quit               leave (or Ctrl-D)

>>> import io
>>> from peirce.engine.prolog import KnowledgeBase
>>> with KnowledgeBase(builtins=True) as kb:
...     console = Console(kb, out=io.StringIO())
...     _ = console.handle(":add parent(ann, bob).")
...     _ = console.handle("parent(ann, Who).")
...     print(console.out.getvalue().strip())
added 1 clause
Who = bob
  parent(ann, bob)   [:add 1]
1 answer.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from peirce.config import console_history_path
from peirce.engine.prolog import KnowledgeBase, LoadedProgram, parse_program, parse_query
from peirce.engine.prolog.codec import BUILTINS, CONTROL
from peirce.engine.prolog.writer import prolog_text, take_output
from peirce.errors import InputError, PeirceError
from peirce.logic import Clause, Compound, Const, Literal, Term, Var
from peirce.results import Diagnostic, Severity, Verdict

__all__ = ["Console", "describe_os_error", "format_term", "history_path"]

_PLAIN_ATOM = re.compile(r"[a-z][A-Za-z0-9_]*|\[\]|[-+*/\\^<>=~:.?@#&$]+")
#: Infix operators written as such, with their priorities in Prolog.
_INFIX = {
    **dict.fromkeys(("=", "\\=", "==", "\\==", "is", "<", ">", "=<", ">=", "=:=", "=\\="), 700),
    **dict.fromkeys(("+", "-"), 500),
    **dict.fromkeys(("*", "/"), 400),
}


def format_term(t: Term, most: int = 1200) -> str:
    """A term as Prolog would write it (quoted atoms, lists, infix operators), however long or
    deep (written with an explicit stack, not by recursion).

    >>> format_term(Compound("[|]", (Const("a"), Compound("[|]", (Const("B b"), Const("[]"))))))
    "[a, 'B b']"
    >>> format_term(Compound("+", (Var("X"), Const(1))))
    'X+1'
    >>> format_term(Compound("*", (Compound("+", (Const(1), Const(2))), Const(-3))))
    '(1+2)*(-3)'

    ``most`` is the highest operator priority the term may have unbracketed (699 for the right
    side of ``X = ...``).
    """
    out: list[str] = []
    stack: list[Term | str] = list(reversed(_operand(t, most))) if most < 1200 else [t]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, Var):
            out.append(item.name)
        elif isinstance(item, Const):
            out.append(_constant(item))
        else:
            stack.extend(reversed(_pieces(item)))
    return "".join(out)


def _constant(c: Const) -> str:
    if isinstance(c.value, str):
        if _PLAIN_ATOM.fullmatch(c.value):
            return c.value
        return "'" + c.value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return str(c.value)


def _pieces(t: Compound) -> list[Term | str]:
    """What ``t`` is written as: strings as they are, terms still to write."""
    out: list[Term | str]
    if t.functor == "$str" and len(t.args) == 1:  # a string, "text"
        return [prolog_text(t)]
    if t.functor == "[|]" and len(t.args) == 2:
        out = ["["]
        tail: Term = t
        while isinstance(tail, Compound) and tail.functor == "[|]" and len(tail.args) == 2:
            if len(out) > 1:
                out.append(", ")
            out.append(tail.args[0])
            tail = tail.args[1]
        if tail != Const("[]"):
            out += ["|", tail]
        return [*out, "]"]
    if t.functor in _INFIX and len(t.args) == 2:
        sep = f" {t.functor} " if t.functor.isalpha() else t.functor
        prio = _INFIX[t.functor]
        left = prio if prio < 700 else prio - 1  # + - * / are yfx; the comparisons xfx
        return [*_operand(t.args[0], left), sep, *_operand(t.args[1], prio - 1)]
    out = [_constant(Const(t.functor)), "("]
    for i, a in enumerate(t.args):
        out += [", ", a] if i else [a]
    return [*out, ")"]


def _operand(t: Term, most: int) -> list[Term | str]:
    """An operand of an infix operator whose priority may be at most ``most``, bracketed when it
    is an operator term of a higher priority or a negative number (so that ``(1+2)*3`` is not
    written ``1+2*3``)."""
    infix = isinstance(t, Compound) and t.functor in _INFIX and len(t.args) == 2
    above = infix and _INFIX[t.functor] > most  # type: ignore[union-attr]
    negative = isinstance(t, Const) and not isinstance(t.value, str) and t.value < 0
    return ["(", t, ")"] if above or negative else [t]


def format_literal(lit: Literal) -> str:
    """A literal in the console's Prolog syntax (``-p(x)`` for strong negation)."""
    term = Compound(lit.predicate, lit.args) if lit.args else Const(lit.predicate)
    return ("-" if lit.negated else "") + format_term(term)


def format_clause(c: Clause) -> str:
    head = format_literal(c.head)
    if not c.body:
        return head + "."
    return f"{head} :- {', '.join(format_literal(b) for b in c.body)}."


def history_path() -> Path:
    """Where the console keeps its line history (``$XDG_STATE_HOME/peirce/console_history``;
    see :func:`peirce.config.console_history_path`)."""
    return console_history_path()


class Console:
    """Reads queries and commands, prints answers with proofs; an error never ends the session.

    Args:
        kb: the knowledge base (create it with ``builtins=True`` to allow ``=``, ``is``, ...).
        out: where answers go.
        answers: at most this many answers per query.
    """

    def __init__(self, kb: KnowledgeBase, *, out: TextIO | None = None, answers: int = 20) -> None:
        self.kb = kb
        kb.control = True  # queries run as SWI-Prolog runs them (kb/control.pl)
        self.out = out if out is not None else sys.stdout
        self.answers = answers
        self._added = 0
        # file -> the clauses it gave (a program read as text, or the clauses of a .txt)
        self._loaded: dict[Path, LoadedProgram | tuple[Clause, ...]] = {}
        self._hinted = False  # the hint about a query's full stop was shown
        self._commands: dict[str, Callable[[str], None]] = {
            "help": self._help,
            "h": self._help,
            "list": self._list,
            "add": self._add,
            "load": self._load_command,
            "ask": self._ask,
        }

    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    # -- loading -------------------------------------------------------------------------------

    def load(self, path: str | Path) -> int:
        """Load a ``.pl`` program, a ``.txt`` file of controlled English or an RDF graph
        (``.nt`` N-Triples, ``.ttl`` Turtle: see :mod:`peirce.engine.rdf_facts`); clauses added.

        Loading a file again replaces the clauses it gave before (as ``consult/1`` does).

        Raises:
            OSError: the file cannot be read.
            InputError: it is not UTF-8 text (the message says where).
        """
        path = Path(path)
        key = path.resolve()
        if path.suffix == ".txt":
            from peirce.translators import cnl

            text = _read_text(path)
            tr = cnl.translate(text)
            for s in tr.untranslated:
                where = f"{path}:{s.span.line}:{s.span.column}"
                self.say(f"{where}: not translated ({s.reason}): {s.text!r}")
            clauses = tuple(
                Clause(c.head, c.body, c.label or s.text, c.span or s.span)
                for s in tr.sentences
                for c in s.clauses
            )
            again = self._unload(key)
            self.kb.add(clauses)
            self._loaded[key] = clauses
            count = len(clauses)
        else:
            if path.suffix in (".nt", ".ttl"):
                from peirce.engine.rdf_facts import load_rdf

                program = load_rdf(self.kb, path, source=path.name)
            else:
                program = self.kb.read_file(path, source=path.name)
            whole = program.text.text() if any(_is_error(d) for d in program.diagnostics) else ""
            for d in program.diagnostics:
                self.say(d.render(whole) if _is_error(d) else d.render())
            del whole
            again = self._unload(key)
            self._loaded[key] = program
            count = program.count
        self.say(f"{path}: {count} clause{'s' * (count != 1)} loaded{again}")
        return count

    def _unload(self, key: Path) -> str:
        """Take out what the file ``key`` gave before (when it was loaded before): a note that
        says how many clauses went."""
        before = self._loaded.pop(key, None)
        if before is None:
            return ""
        if isinstance(before, LoadedProgram):
            gone = self.kb.unload(before)
        else:
            gone = self.kb.remove(before)
        return f" (replacing the {gone} it gave before)"

    # -- one input -----------------------------------------------------------------------------

    def handle(self, line: str) -> bool:
        """Run one query or command; False when the session should end."""
        text = line.strip()
        if not text or text.startswith("%"):
            return True
        bad = _not_utf8(text)
        if bad is not None:
            self.say(f"error: the input is not UTF-8 text (column {bad + 1}); nothing was run")
            return True
        if text.startswith(":"):
            name, _, rest = text[1:].partition(" ")
            if name in ("quit", "q", "exit", "halt"):
                return False
            command = self._commands.get(name)
            if command is None:
                self.say(f"unknown command :{name} (type :help)")
                return True
            self._guarded(command, rest.strip())
            return True
        self._guarded(self.query, text)
        return True

    def _guarded(self, fn: Callable[[str], None], arg: str) -> None:
        try:
            fn(arg)
        except PeirceError as exc:
            self.say(f"error: {exc}")
        except OSError as exc:
            self.say(f"error: {describe_os_error(exc)}")

    def query(self, text: str) -> None:
        """Answer a query: each answer's bindings and proof trees, then how many."""
        goals = parse_query(text)
        self._check(goals)
        result = self.kb.query(goals, limit=self.answers)
        printed = take_output()  # what format/2, write/1, ... wrote
        if printed:
            self.out.write(printed if printed.endswith("\n") else printed + "\n")
        names = [n for n in dict.fromkeys(_vars(goals)) if not n.startswith("_")]
        for sol in result.solutions:
            shown = [  # a variable left free is not shown (as SWI-Prolog's top level)
                f"{n} = {format_term(sol.bindings[n], 699)}"
                for n in names
                if n in sol.bindings and not _fresh(sol.bindings[n])
            ]
            self.say(", ".join(shown) if shown else "true")
            for proof in sol.proofs:
                self.say(proof.render("  "))
        count = len(result.solutions)
        if not result.complete:
            self.say(
                f"{count} answer{'s' * (count != 1)} before the search stopped: {result.reason}"
            )
        elif count == 0:
            self.say("false (not provable from the knowledge base)")
        else:
            more = " (there may be more: raise the answer limit)" if count == self.answers else ""
            self.say(f"{count} answer{'s' * (count != 1)}.{more}")

    def _check(self, goals: Sequence[Literal]) -> None:
        for g in goals:
            if (not g.negated and (g.predicate, len(g.args)) in BUILTINS) or g.predicate == CONTROL:
                continue
            if not self.kb.concludes(g):
                rel = f"{'-' if g.negated else ''}{g.predicate}/{len(g.args)}"
                raise QueryRefused(
                    f"unknown relation {rel}: no clause of the knowledge base concludes it, and "
                    "it is not an allowed built-in (see :help)"
                )

    # -- commands ------------------------------------------------------------------------------

    def _help(self, _: str) -> None:
        doc = __doc__ or ""
        self.say(doc[doc.index("Commands::") :].split("\n\n>>>")[0].replace("::", ":"))
        allowed = sorted({f"{n}/{a}" for n, a in BUILTINS})
        self.say("\nBuilt-ins a query or clause may call: " + " ".join(allowed))
        self.say(
            "Control constructs and libraries (kb/control.pl): , ; -> *-> \\+ ! findall/3,4 "
            "bagof/3 setof/3 forall/2 aggregate_all/3 call/1..8 phrase/2,3 maplist/2..5 "
            "foldl/4..6 include/3 exclude/3 partition/4 predsort/3, library(lists), atom and "
            "string predicates, format/1,2 (not ~@)"
        )

    def _list(self, name: str) -> None:
        shown = 0
        for c in self.kb.clauses():
            if name and c.head.predicate != name:
                continue
            label = f"   % {c.label}" if c.label and c.label != str(c) else ""
            self.say(format_clause(c) + label)
            shown += 1
        if not shown:
            self.say(f"no clauses{' for ' + name if name else ''}")

    def _add(self, text: str) -> None:
        if not text.rstrip().endswith("."):
            text += "."
        program = parse_program(text)
        for d in program.diagnostics:
            self.say(d.render(text))
        if program.errors:
            return
        clauses = []
        for c in program.clauses:
            self._added += 1
            clauses.append(Clause(c.head, c.body, f":add {self._added}", c.span))
        self.kb.add(clauses)
        self.say(f"added {len(clauses)} clause{'s' * (len(clauses) != 1)}")

    def _load_command(self, path: str) -> None:
        if not path:
            raise QueryRefused("usage: :load FILE")
        self.load(os.path.expanduser(path))

    def _ask(self, text: str) -> None:
        goals = parse_query(text)
        if len(goals) != 1:
            raise QueryRefused(":ask takes one literal, e.g. :ask sour(max).")
        j = self.kb.ask(goals[0])
        answer = {Verdict.ENTAILED: "True", Verdict.REFUTED: "False"}.get(j.verdict, "Unknown")
        self.say(f"{answer}: {j.reason}")
        if j.proof is not None:
            self.say(j.proof.render("  "))

    # -- the loop ------------------------------------------------------------------------------

    def run(self, stdin: TextIO | None = None, *, history: Path | None = None) -> int:
        """Read and answer until :quit or end of input; the exit status."""
        stdin = stdin if stdin is not None else sys.stdin
        interactive = stdin.isatty()
        saved = _start_history(history or history_path()) if interactive else None
        if interactive:
            self.say("peirce console: Prolog queries answered with proofs (:help, :quit)")
        try:
            while True:
                try:
                    text = self._read(stdin, interactive)
                    if text is None or not self.handle(text):
                        break
                except KeyboardInterrupt:
                    self.say("\n(interrupted)")
        finally:
            if saved is not None:
                saved()
        return 0

    def _read(self, stdin: TextIO, interactive: bool) -> str | None:
        """One query or command; a query continues over lines until its full stop."""
        lines: list[str] = []
        while True:
            prompt = ("?- " if not lines else "|    ") if interactive else ""
            try:
                line = input(prompt) if stdin is sys.stdin else _readline(stdin)
            except EOFError:
                if interactive:
                    self.say()
                return " ".join(lines) if lines else None
            if lines and not line.strip():  # an empty line ends a query that is still open
                return " ".join(lines).strip()
            lines.append(line)
            joined = " ".join(lines).strip()
            if not joined or joined.startswith((":", "%")) or joined.endswith("."):
                return joined
            if _whole_query(joined):  # the full stop is optional
                return joined
            if interactive and not self._hinted:
                self._hinted = True
                self.say("(the query goes on: end it with a full stop, or an empty line)")


class QueryRefused(PeirceError, ValueError):
    """A query or command the console will not run (the message says why)."""


def describe_os_error(exc: OSError) -> str:
    """An ``OSError`` as one line: which file and why (no ``[Errno N]``)."""
    why = exc.strerror or str(exc)
    return f"cannot read {exc.filename}: {why}" if exc.filename is not None else why


def _is_error(d: Diagnostic) -> bool:
    return d.severity is Severity.ERROR


def _read_text(path: Path) -> str:
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputError(
            f"not UTF-8 text: byte 0x{data[exc.start]:02x} at line {line}, column {column}",
            source=str(path),
        ) from None


def _not_utf8(text: str) -> int | None:
    """Where ``text`` holds a lone surrogate (how Python reads bytes that are not UTF-8)."""
    for i, ch in enumerate(text):
        if "\ud800" <= ch <= "\udfff":
            return i
    return None


def _whole_query(text: str) -> bool:
    """Whether ``text`` reads as a whole query without its full stop."""
    if _not_utf8(text) is not None:
        return True  # handle() reports it
    try:
        parse_query(text)
    except PeirceError:
        return False
    return True


def _readline(stdin: TextIO) -> str:
    line = stdin.readline()
    if not line:
        raise EOFError
    return line.rstrip("\n")


def _fresh(t: Term) -> bool:
    """A variable the answer left free (the decoder names it ``_N``)."""
    return isinstance(t, Var) and t.name[:1] == "_" and t.name[1:].isdigit()


def _vars(goals: Sequence[Literal]) -> list[str]:
    """The variable names of ``goals``, in order, with repeats (an explicit stack: a term may be
    a list of many thousands of elements)."""
    out: list[str] = []
    stack: list[Term] = [a for g in reversed(goals) for a in reversed(g.args)]
    while stack:
        t = stack.pop()
        if isinstance(t, Var):
            out.append(t.name)
        elif isinstance(t, Compound):
            stack.extend(reversed(t.args))
    return out


def _start_history(path: Path) -> Callable[[], None] | None:
    """Line editing with a history file; a function that saves it (None without readline)."""
    try:
        import readline
    except ImportError:  # pragma: no cover - e.g. Windows without pyreadline
        return None
    with contextlib.suppress(OSError):  # no history yet, or unreadable: start empty
        readline.read_history_file(path)
    readline.set_history_length(1000)

    def save() -> None:
        with contextlib.suppress(OSError):  # a read-only home must not spoil the session
            path.parent.mkdir(parents=True, exist_ok=True)
            readline.write_history_file(path)

    return save
