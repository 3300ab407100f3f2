"""A subset of Python, interpreted from its syntax tree under a whitelist and bounds.

Model-written programs (Faithful-CoT's math, date and sports programs) are never given to
``exec``/``eval``: :func:`run_python` parses the text with :mod:`ast` and walks the tree itself.
Only the node types in ``_STATEMENTS``/``_EXPRESSIONS`` are run; a name is looked up in the
program's own variables, then in the namespace the caller gives (``peirce.engine.pysubset_lib``
builds them: builtins, ``math``, dates, SymPy); an attribute is read only when its name is in
the table for the value's type (:func:`~peirce.engine.pysubset_lib.attribute`), and never one
starting with ``_``; only values this module or the library made can be called.

Bounds (:class:`Bounds`): evaluation steps, seconds, call depth, the size of integers (a power
or shift whose result would pass it is refused before it is computed), of strings and of
collections. Past a bound the run ends ``too_complex``; a construct outside the subset ends it
``refused``; an error of the program itself (a name it never defined, a division by zero) ends
it ``error``, as it would end Faithful-CoT's executor.

Kept whole past 400 lines: one method per node type in one class, so that what runs is read
in one place.

>>> r = run_python("x = 3\\ny = x * 2 + 1\\n", {})
>>> r.status, r.env["y"]
(<RunStatus.OK: 'ok'>, 7)
>>> run_python("().__class__", {}).status
<RunStatus.REFUSED: 'refused'>
>>> run_python("x = 9 ** 9 ** 9", {}).status
<RunStatus.TOO_COMPLEX: 'too_complex'>
"""

from __future__ import annotations

import ast
import enum
import operator
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from peirce.engine.pysubset_lib import (
    Bounds,
    Call,
    Exhausted,
    Function,
    ProgramFault,
    Refusal,
    attribute,
    check_size,
    is_callable,
    resolve_import,
)

__all__ = ["Bounds", "Run", "RunStatus", "run_python"]


class RunStatus(enum.StrEnum):
    """How a run ended."""

    OK = "ok"
    ERROR = "error"
    TOO_COMPLEX = "too_complex"
    REFUSED = "refused"
    UNREADABLE = "unreadable"


@dataclass(frozen=True, slots=True)
class Run:
    """The end of a run.

    Attributes:
        status: how it ended.
        env: the program's variables at the end (at the failure, when it failed).
        output: the lines it printed.
        reason: why, when not ok.
        line: the program line where it failed (0: none).
        assigned: per statement run at the top level, ``(line, ((name, value), ...))``: the
            names it assigned and their values just after it ran.
    """

    status: RunStatus
    env: Mapping[str, object]
    output: tuple[str, ...]
    reason: str = ""
    line: int = 0
    assigned: tuple[tuple[int, tuple[tuple[str, object], ...]], ...] = field(default=())


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class _Return(Exception):
    def __init__(self, value: object) -> None:
        super().__init__()
        self.value = value


_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Not: operator.not_,
    ast.Invert: operator.invert,
}
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: operator.contains(b, a),
    ast.NotIn: lambda a, b: not operator.contains(b, a),
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
}
#: the exceptions a program's ``except`` clause may name (its own faults are these)
_CATCHABLE = frozenset(
    {"Exception", "ValueError", "ZeroDivisionError", "TypeError", "KeyError", "IndexError",
     "ArithmeticError", "OverflowError", "NameError", "AttributeError"}
)  # fmt: skip


def run_python(text: str, namespace: Mapping[str, object], bounds: Bounds | None = None) -> Run:
    """Run ``text`` (see the module docstring); never raises for anything the text does."""
    bounds = bounds or Bounds()
    if len(text) > bounds.text:
        return Run(RunStatus.TOO_COMPLEX, {}, (), f"program longer than {bounds.text} characters")
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", 0) or 0
        return Run(RunStatus.UNREADABLE, {}, (), f"not Python: {exc}", line)
    except RecursionError:
        return Run(RunStatus.TOO_COMPLEX, {}, (), "nested too deeply to read")
    machine = _Machine(namespace, bounds)
    return machine.run(tree)


class _Machine:
    """One run: the variables, the output, the counters."""

    def __init__(self, namespace: Mapping[str, object], bounds: Bounds) -> None:
        self.builtins = namespace
        self.bounds = bounds
        self.env: dict[str, object] = {}
        self.output: list[str] = []
        self.steps = 0
        self.depth = 0
        self.deadline = time.monotonic() + bounds.seconds
        self.line = 0
        self.assigned: list[tuple[int, tuple[tuple[str, object], ...]]] = []
        self.call = Call(bounds, self._apply, self._print)
        modules = namespace.get("__modules__")  # a namespace's own modules (never a name)
        self.modules: Mapping[str, Mapping[str, object]] | None = (
            modules if isinstance(modules, Mapping) else None
        )

    def run(self, tree: ast.Module) -> Run:
        status, reason = RunStatus.OK, ""
        try:
            for stmt in tree.body:
                self.line = stmt.lineno
                self.stmt(stmt, self.env)
                names = [n for n in _stored(stmt) if n in self.env]
                self.assigned.append((stmt.lineno, tuple((n, self.env[n]) for n in names)))
        except Refusal as exc:
            status, reason = RunStatus.REFUSED, str(exc)
        except Exhausted as exc:
            status, reason = RunStatus.TOO_COMPLEX, str(exc)
        except ProgramFault as exc:
            status, reason = RunStatus.ERROR, str(exc)
        except (_Break, _Continue, _Return):
            status, reason = RunStatus.ERROR, "break, continue or return outside its place"
        except RecursionError:
            status, reason = RunStatus.TOO_COMPLEX, "nested too deeply"
        except MemoryError:
            status, reason = RunStatus.TOO_COMPLEX, "out of memory"
        except Exception as exc:
            status, reason = RunStatus.ERROR, f"{type(exc).__name__}: {exc}"
        line = 0 if status is RunStatus.OK else self.line
        return Run(status, dict(self.env), tuple(self.output), reason, line, tuple(self.assigned))

    # -- bookkeeping -------------------------------------------------------------------------

    def tick(self, node: ast.AST) -> None:
        self.steps += 1
        if self.steps > self.bounds.steps:
            raise Exhausted(f"more than {self.bounds.steps} evaluation steps")
        if self.steps % 256 == 0 and time.monotonic() > self.deadline:
            raise Exhausted(f"longer than {self.bounds.seconds} seconds")
        line = getattr(node, "lineno", None)
        if isinstance(line, int) and self.depth == 0:
            self.line = line

    def _print(self, text: str) -> None:
        if sum(len(x) for x in self.output) + len(text) > self.bounds.text:
            raise Exhausted(f"printed more than {self.bounds.text} characters")
        self.output.extend(text.split("\n"))

    # -- statements --------------------------------------------------------------------------

    def block(self, stmts: Iterable[ast.stmt], env: dict[str, object]) -> None:
        for stmt in stmts:
            self.stmt(stmt, env)

    def stmt(self, node: ast.stmt, env: dict[str, object]) -> None:
        self.tick(node)
        method = getattr(self, "s_" + type(node).__name__, None)
        if method is None:
            raise Refusal(f"line {node.lineno}: {type(node).__name__} is outside the subset")
        method(node, env)

    def s_Expr(self, node: ast.Expr, env: dict[str, object]) -> None:
        self.expr(node.value, env)

    def s_Pass(self, node: ast.Pass, env: dict[str, object]) -> None:
        return None

    def s_Assign(self, node: ast.Assign, env: dict[str, object]) -> None:
        value = self.expr(node.value, env)
        for target in node.targets:
            self.store(target, value, env)

    def s_AnnAssign(self, node: ast.AnnAssign, env: dict[str, object]) -> None:
        if node.value is not None:
            self.store(node.target, self.expr(node.value, env), env)

    def s_AugAssign(self, node: ast.AugAssign, env: dict[str, object]) -> None:
        current = self.expr(_as_load(node.target), env)
        value = self.binary(node.op, current, self.expr(node.value, env))
        self.store(node.target, value, env)

    def s_If(self, node: ast.If, env: dict[str, object]) -> None:
        self.block(node.body if self.expr(node.test, env) else node.orelse, env)

    def _loop(
        self, rounds: Iterator[None], node: ast.For | ast.While, env: dict[str, object]
    ) -> None:
        """A loop's body once per round (``rounds`` sets each one up), then its ``else``
        unless a ``break`` ended it."""
        for _ in rounds:
            try:
                self.block(node.body, env)
            except _Break:
                return
            except _Continue:
                continue
        self.block(node.orelse, env)

    def s_For(self, node: ast.For, env: dict[str, object]) -> None:
        def rounds() -> Iterator[None]:
            for item in self.iterate(self.expr(node.iter, env)):
                self.store(node.target, item, env)
                yield

        self._loop(rounds(), node, env)

    def s_While(self, node: ast.While, env: dict[str, object]) -> None:
        def rounds() -> Iterator[None]:
            while self.expr(node.test, env):
                self.tick(node)
                yield

        self._loop(rounds(), node, env)

    def s_Break(self, node: ast.Break, env: dict[str, object]) -> None:
        raise _Break

    def s_Continue(self, node: ast.Continue, env: dict[str, object]) -> None:
        raise _Continue

    def s_Return(self, node: ast.Return, env: dict[str, object]) -> None:
        raise _Return(None if node.value is None else self.expr(node.value, env))

    def s_FunctionDef(self, node: ast.FunctionDef, env: dict[str, object]) -> None:
        if node.decorator_list:
            raise Refusal(f"line {node.lineno}: decorators are outside the subset")
        a = node.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
            raise Refusal(f"line {node.lineno}: only plain parameters are in the subset")
        defaults = tuple(self.expr(d, env) for d in a.defaults)
        env[node.name] = Function(node.name, tuple(p.arg for p in a.args), defaults, node, env)

    def s_Try(self, node: ast.Try, env: dict[str, object]) -> None:
        names = []
        for handler in node.handlers:
            names.extend(_handler_names(handler))
        try:
            self.block(node.body, env)
        except (Refusal, Exhausted):
            raise
        except Exception as exc:
            caught = self._handler(node.handlers, exc)
            if caught is None:
                raise
            if caught.name:
                env[caught.name] = str(exc)
            self.block(caught.body, env)
        else:
            self.block(node.orelse, env)
        finally:
            self.block(node.finalbody, env)

    def _handler(
        self, handlers: list[ast.ExceptHandler], exc: Exception
    ) -> ast.ExceptHandler | None:
        if isinstance(exc, (_Break, _Continue, _Return)):
            return None
        if isinstance(exc, ProgramFault):
            kinds = {exc.kind, "Exception"}
        else:
            kinds = {c.__name__ for c in type(exc).__mro__}
        for handler in handlers:
            for name in _handler_names(handler):
                if name == "*" or name in kinds:
                    return handler
        return None

    def s_Import(self, node: ast.Import, env: dict[str, object]) -> None:
        for alias in node.names:
            module = resolve_import(alias.name, None, self.modules)
            env[alias.asname or alias.name.split(".")[0]] = module

    def s_ImportFrom(self, node: ast.ImportFrom, env: dict[str, object]) -> None:
        for alias in node.names:
            if alias.name == "*":
                raise Refusal(f"line {node.lineno}: 'from {node.module} import *'")
            found = resolve_import(node.module or "", alias.name, self.modules)
            env[alias.asname or alias.name] = found

    def s_Assert(self, node: ast.Assert, env: dict[str, object]) -> None:
        if not self.expr(node.test, env):
            raise ProgramFault(f"line {node.lineno}: assertion failed")

    # -- stores ------------------------------------------------------------------------------

    def store(self, target: ast.expr, value: object, env: dict[str, object]) -> None:
        if isinstance(target, ast.Name):
            _check_name(target.id)
            env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = list(self.iterate(value))
            if len(items) != len(target.elts):
                raise ProgramFault(f"cannot unpack {len(items)} values into {len(target.elts)}")
            for sub, item in zip(target.elts, items, strict=True):
                self.store(sub, item, env)
        elif isinstance(target, ast.Subscript):
            container = self.expr(target.value, env)
            if not isinstance(container, (list, dict)):
                raise ProgramFault(f"cannot assign an item of {type(container).__name__}")
            key = self.expr(target.slice, env)
            box: Any = container  # a list or a dict, set as Python sets it
            box[key] = value
            check_size(container, self.bounds)
        else:
            raise Refusal(f"assignment to {type(target).__name__} is outside the subset")

    # -- expressions -------------------------------------------------------------------------

    def expr(self, node: ast.expr, env: Mapping[str, object]) -> Any:
        self.tick(node)
        method = getattr(self, "e_" + type(node).__name__, None)
        if method is None:
            raise Refusal(f"line {node.lineno}: {type(node).__name__} is outside the subset")
        return method(node, env)

    def e_Constant(self, node: ast.Constant, env: Mapping[str, object]) -> object:
        if not isinstance(node.value, (int, float, str, bool, type(None))):
            raise Refusal(f"line {node.lineno}: a {type(node.value).__name__} constant")
        check_size(node.value, self.bounds)
        return node.value

    def e_Name(self, node: ast.Name, env: Mapping[str, object]) -> object:
        _check_name(node.id)
        if node.id in env:
            return env[node.id]
        if env is not self.env and node.id in self.env:
            return self.env[node.id]
        if node.id in self.builtins:
            value = self.builtins[node.id]
            if isinstance(value, Refusal):
                raise value
            return value
        raise ProgramFault(f"line {node.lineno}: name {node.id!r} is not defined")

    def e_BinOp(self, node: ast.BinOp, env: Mapping[str, object]) -> object:
        return self.binary(node.op, self.expr(node.left, env), self.expr(node.right, env))

    def binary(self, op: ast.operator, left: object, right: object) -> object:
        fn = _BINARY.get(type(op))
        if fn is None:
            raise Refusal(f"the operator {type(op).__name__} is outside the subset")
        self.call.guard_binary(type(op).__name__, left, right)
        result = fn(left, right)
        check_size(result, self.bounds)
        return result

    def e_UnaryOp(self, node: ast.UnaryOp, env: Mapping[str, object]) -> object:
        return _UNARY[type(node.op)](self.expr(node.operand, env))

    def e_BoolOp(self, node: ast.BoolOp, env: Mapping[str, object]) -> object:
        value: object = None
        for sub in node.values:
            value = self.expr(sub, env)
            if isinstance(node.op, ast.And) and not value:
                return value
            if isinstance(node.op, ast.Or) and value:
                return value
        return value

    def e_Compare(self, node: ast.Compare, env: Mapping[str, object]) -> object:
        left = self.expr(node.left, env)
        for op, sub in zip(node.ops, node.comparators, strict=True):
            right = self.expr(sub, env)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True

    def e_IfExp(self, node: ast.IfExp, env: Mapping[str, object]) -> object:
        return self.expr(node.body if self.expr(node.test, env) else node.orelse, env)

    def e_List(self, node: ast.List, env: Mapping[str, object]) -> object:
        return self.elements(node.elts, env)

    def e_Tuple(self, node: ast.Tuple, env: Mapping[str, object]) -> object:
        return tuple(self.elements(node.elts, env))

    def e_Set(self, node: ast.Set, env: Mapping[str, object]) -> object:
        return set(self.elements(node.elts, env))

    def e_Dict(self, node: ast.Dict, env: Mapping[str, object]) -> object:
        out = {}
        for k, v in zip(node.keys, node.values, strict=True):
            if k is None:
                raise Refusal(f"line {node.lineno}: '**' in a dict is outside the subset")
            out[self.expr(k, env)] = self.expr(v, env)
        return out

    def elements(self, elts: list[ast.expr], env: Mapping[str, object]) -> list[object]:
        out: list[object] = []
        for e in elts:
            if isinstance(e, ast.Starred):
                out.extend(self.iterate(self.expr(e.value, env)))
            else:
                out.append(self.expr(e, env))
        check_size(out, self.bounds)
        return out

    def e_Subscript(self, node: ast.Subscript, env: Mapping[str, object]) -> object:
        container = self.expr(node.value, env)
        key = self.expr(node.slice, env)
        return self.call.subscript(container, key)

    def e_Slice(self, node: ast.Slice, env: Mapping[str, object]) -> object:
        def part(e: ast.expr | None) -> object:
            return None if e is None else self.expr(e, env)

        return slice(part(node.lower), part(node.upper), part(node.step))

    def e_Attribute(self, node: ast.Attribute, env: Mapping[str, object]) -> object:
        return attribute(self.expr(node.value, env), node.attr)

    def e_JoinedStr(self, node: ast.JoinedStr, env: Mapping[str, object]) -> object:
        parts = [str(self.expr(v, env)) for v in node.values]
        text = "".join(parts)
        check_size(text, self.bounds)
        return text

    def e_FormattedValue(self, node: ast.FormattedValue, env: Mapping[str, object]) -> object:
        value = self.expr(node.value, env)
        if node.conversion == ord("r"):
            value = repr(value)
        elif node.conversion == ord("s"):
            value = str(value)
        spec = "" if node.format_spec is None else str(self.expr(node.format_spec, env))
        return self.call.format(value, spec)

    def e_Call(self, node: ast.Call, env: Mapping[str, object]) -> object:
        fn = self.expr(node.func, env)
        args = self.elements(node.args, env)
        kwargs: dict[str, object] = {}
        for kw in node.keywords:
            if kw.arg is None:
                raise Refusal(f"line {node.lineno}: '**' arguments are outside the subset")
            kwargs[kw.arg] = self.expr(kw.value, env)
        if not is_callable(fn):
            raise ProgramFault(f"line {node.lineno}: {type(fn).__name__} is not callable here")
        return self.call(fn, args, kwargs)

    def _apply(self, fn: Function, args: list[object], kwargs: dict[str, object]) -> object:
        """Call a function the program defined, in a scope of its own."""
        if self.depth >= self.bounds.depth:
            raise Exhausted(f"calls nested deeper than {self.bounds.depth}")
        scope = fn.bind(args, kwargs)
        self.depth += 1
        try:
            self.block(fn.node.body, scope)
        except _Return as ret:
            return ret.value
        finally:
            self.depth -= 1
        return None

    def e_Lambda(self, node: ast.Lambda, env: Mapping[str, object]) -> object:
        a = node.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults:
            raise Refusal(f"line {node.lineno}: only plain lambda parameters are in the subset")
        body = ast.Return(value=node.body, lineno=node.lineno, col_offset=node.col_offset)
        fake = ast.FunctionDef(name="<lambda>", args=a, body=[body], decorator_list=[])
        scope = env if isinstance(env, dict) else dict(env)
        return Function("<lambda>", tuple(p.arg for p in a.args), (), fake, scope)

    # -- comprehensions ----------------------------------------------------------------------

    def comprehension(
        self, gens: list[ast.comprehension], env: Mapping[str, object]
    ) -> Iterator[dict[str, object]]:
        scope = dict(env) if env is not self.env else {}
        yield from self._generate(gens, 0, scope, env)

    def _generate(
        self,
        gens: list[ast.comprehension],
        i: int,
        scope: dict[str, object],
        outer: Mapping[str, object],
    ) -> Iterator[dict[str, object]]:
        if i == len(gens):
            yield scope
            return
        gen = gens[i]
        view = _Chain(scope, outer)
        for item in self.iterate(self.expr(gen.iter, view)):
            self.store(gen.target, item, scope)
            if all(self.expr(cond, _Chain(scope, outer)) for cond in gen.ifs):
                yield from self._generate(gens, i + 1, scope, outer)

    def e_ListComp(self, node: ast.ListComp, env: Mapping[str, object]) -> object:
        out = [
            self.expr(node.elt, _Chain(s, env)) for s in self.comprehension(node.generators, env)
        ]
        check_size(out, self.bounds)
        return out

    def e_GeneratorExp(self, node: ast.GeneratorExp, env: Mapping[str, object]) -> object:
        return self.e_ListComp(node, env)  # type: ignore[arg-type]

    def e_SetComp(self, node: ast.SetComp, env: Mapping[str, object]) -> object:
        return set(self.e_ListComp(node, env))  # type: ignore[arg-type, call-overload]

    def e_DictComp(self, node: ast.DictComp, env: Mapping[str, object]) -> object:
        out = {}
        for s in self.comprehension(node.generators, env):
            view = _Chain(s, env)
            out[self.expr(node.key, view)] = self.expr(node.value, view)
        check_size(out, self.bounds)
        return out

    def iterate(self, value: object) -> Iterator[object]:
        for item in self.call.iterable(value):
            self.tick(ast.Pass())
            yield item


class _Chain(Mapping[str, object]):
    """A comprehension's own variables over the scope around it."""

    __slots__ = ("inner", "outer")

    def __init__(self, inner: Mapping[str, object], outer: Mapping[str, object]) -> None:
        self.inner = inner
        self.outer = outer

    def __getitem__(self, key: str) -> object:
        if key in self.inner:
            return self.inner[key]
        return self.outer[key]

    def __contains__(self, key: object) -> bool:
        return key in self.inner or key in self.outer

    def __iter__(self) -> Iterator[str]:
        return iter({**self.outer, **self.inner})

    def __len__(self) -> int:
        return len({**self.outer, **self.inner})


def _stored(stmt: ast.stmt) -> list[str]:
    """The names a top-level statement assigns (not those local to its functions)."""
    found: list[str] = []
    todo: list[ast.AST] = [stmt]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef):
            found.append(node.name)
            continue
        if isinstance(
            node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp, ast.Lambda)
        ):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id not in found:
            found.append(node.id)
        todo.extend(ast.iter_child_nodes(node))
    return found


def _check_name(name: str) -> None:
    if name.startswith("__"):
        raise Refusal(f"the name {name!r} is outside the subset")


def _as_load(target: ast.expr) -> ast.expr:
    if isinstance(target, ast.Name):
        return ast.Name(id=target.id, ctx=ast.Load(), lineno=target.lineno, col_offset=0)
    if isinstance(target, ast.Subscript):
        return ast.Subscript(
            value=target.value,
            slice=target.slice,
            ctx=ast.Load(),
            lineno=target.lineno,
            col_offset=0,
        )
    raise Refusal(f"augmented assignment to {type(target).__name__} is outside the subset")


def _handler_names(handler: ast.ExceptHandler) -> list[str]:
    kind = handler.type
    if kind is None:
        return ["*"]
    elts = kind.elts if isinstance(kind, ast.Tuple) else [kind]
    names = []
    for e in elts:
        if not isinstance(e, ast.Name) or e.id not in _CATCHABLE:
            raise Refusal(f"line {handler.lineno}: except names only {sorted(_CATCHABLE)}")
        names.append(e.id)
    return names
