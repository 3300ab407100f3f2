"""Many independent questions in one Prolog call: ``ask_many([(clauses, goal), ...])``.

Each item is answered exactly as ``KnowledgeBase(clauses).ask(goal)`` answers it (ENTAILED,
REFUTED or UNKNOWN; contradictory is UNKNOWN with both proofs; the limits apply to each query;
proof trees name the clauses by their labels), but a whole chunk of items costs one crossing into
Prolog instead of a knowledge base each (a module to take and empty, two or three calls):

>>> from peirce.logic import Clause, Const, Literal, Var
>>> X, max_ = Var("X"), Const("max")
>>> context = [
...     Clause(Literal("wumpus", (max_,)), label="Max is a wumpus."),
...     Clause(Literal("sour", (X,), negated=True), (Literal("wumpus", (X,)),),
...            label="Wumpuses are not sour."),
... ]
>>> answers = ask_many([(context, Literal("sour", (max_,))), (context, Literal("shy", (max_,)))])
>>> [a.verdict.value for a in answers]
['refuted', 'unknown']
>>> print(answers[0].proof.render())
¬sour(max)   [Wumpuses are not sour.]
  wumpus(max)   [Max is a wumpus.]
>>> answers[1].reason
'neither shy(max) nor ¬shy(max) is provable (no clause concludes shy/1; no clause concludes ¬shy/1)'

How: the items of a chunk (:data:`CHUNK` of them) travel as one JSON text, each distinct clause
once. In Prolog, for each item in turn, its clauses are asserted into one scratch module, the goal
and its complement are proved by the meta-interpreter of ``kb/meta.pl`` (iterative deepening,
tabling, limits), and the clauses are erased; each proof comes back as one flat list. Only the
clauses a backward search from the goal can reach (by head relation) are sent: no other clause is
ever tried, so this changes no answer, proof or inference count. An item whose relations no
clause concludes is answered without Prolog.

Bad items spoil nothing: an item that cannot be encoded (a constant that is neither a string nor
a number, text UTF-8 cannot carry), whose JSON alone is larger than ``Limits.input_bytes``, or
that raises inside Prolog is answered UNKNOWN, with the error in its reason and in
``evidence["error"]``, where ``KnowledgeBase.ask`` would raise; the other items are answered as
usual. A chunk whose JSON would be larger than that bound goes to Prolog in more calls. Built-ins
are off, as in a default knowledge base.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import cast

from peirce.engine.prolog.codec import clause_text, encode_term, literal_text, term_text
from peirce.engine.prolog.pool import release_module, take_module
from peirce.engine.prolog.proofs import Proof, judgement, not_concluded, not_proved
from peirce.engine.prolog.runtime import DEFAULT_LIMITS, LOCK, Limits, ask_batch, json_text
from peirce.errors import ConfigError, InputError
from peirce.jsontypes import JSON
from peirce.logic import Clause, Const, Literal, Var
from peirce.results import Judgement, ProofNode, Verdict

__all__ = ["CHUNK", "ask_many", "clause_json", "query_json"]

#: Items per Prolog call: bounds the size of the JSON texts and of the reply.
CHUNK = 256

_TEXTS: dict[str, str] = {}  # a string -> its JSON
_NAMES: tuple[dict[str, str], dict[str, str]] = ({}, {})  # per sign: predicate -> JSON name
_MEMO_SIZE = 65_536

Key = tuple[str, int, bool]
#: What Prolog answers for one query of an item: its status and the proof as a flat list
#: (empty when not proved; see :func:`_decode`).
Attempt = tuple[str, list[JSON]]


def _text(value: str) -> str:
    if len(_TEXTS) >= _MEMO_SIZE:
        _TEXTS.clear()
    _TEXTS[value] = text = json_text(value)
    return text


def _name(lit: Literal) -> str:
    names = _NAMES[bool(lit.negated)]
    if len(names) >= _MEMO_SIZE:
        names.clear()
    names[lit.predicate] = text = json_text(("n:" if lit.negated else "p:") + lit.predicate)
    return text


def _literal(lit: Literal, vs: dict[str, int]) -> str:
    """The JSON of ``lit`` with built-ins off, as ``json_text(encode_literal(lit, vs, False))``
    writes it, but faster."""
    name = _NAMES[bool(lit.negated)].get(lit.predicate) or _name(lit)
    if not lit.args:
        return name
    parts = [name]
    for t in lit.args:
        if type(t) is Var and t.name != "_":
            i = vs.get(t.name)
            if i is None:
                vs[t.name] = i = len(vs)
            parts.append(f"[{i}]")
        elif type(t) is Const and type(t.value) is str:
            parts.append(_TEXTS.get(t.value) or _text(t.value))
        else:
            parts.append(json_text(encode_term(t, vs)))
    return "[" + ",".join(parts) + "]"


def clause_json(clause: Clause) -> str:
    """The JSON ``[number_of_variables, head, body]`` of ``clause`` with built-ins off.

    >>> from peirce.logic import Var
    >>> clause_json(Clause(Literal("p", (Var("X"),)), (Literal("q", (Var("X"),), True),)))
    '[1,["p:p",[0]],[["n:q",[0]]]]'
    """
    vs: dict[str, int] = {}
    head = _literal(clause.head, vs)
    body = ",".join([_literal(b, vs) for b in clause.body])
    return f"[{len(vs)},{head},[{body}]]"


def query_json(goal: Literal) -> str:
    """The JSON ``[number_of_variables, [goal]]`` of a one-goal query with built-ins off.

    >>> query_json(Literal("r", (Var("X"), Const(2.5))))
    '[1,[["p:r",[0],2.5]]]'
    """
    vs: dict[str, int] = {}
    lit = _literal(goal, vs)
    return f"[{len(vs)},[{lit}]]"


def _by_head(clauses: Sequence[Clause]) -> dict[Key, list[int]]:
    by_head: dict[Key, list[int]] = {}
    for i, c in enumerate(clauses):
        head = c.head
        key = (head.predicate, len(head.args), head.negated)
        if key in by_head:
            by_head[key].append(i)
        else:
            by_head[key] = [i]
    return by_head


def _relevant(
    clauses: Sequence[Clause], by_head: dict[Key, list[int]], keys: list[Key]
) -> list[int]:
    """The clauses a backward search from relations ``keys`` can reach (by head relation), in
    order. No other clause is ever tried, so leaving them out changes nothing."""
    seen = set(keys)
    found: list[int] = []
    while keys:
        for i in by_head.get(keys.pop(), ()):
            found.append(i)
            for b in clauses[i].body:
                key = b.key
                if key not in seen:
                    seen.add(key)
                    keys.append(key)
    found.sort()
    return found


class _Item:
    """One question of a chunk: what goes to Prolog, and how to read its reply."""

    __slots__ = ("asked", "clauses", "goal", "text")

    def __init__(
        self,
        clauses: Sequence[Clause],
        goal: Literal,
        by_head: dict[Key, list[int]],
        table: dict[str, int],
    ) -> None:
        self.goal = goal
        key = goal.key
        comp_key = (key[0], key[1], not key[2])
        #: whether the goal and its complement go to Prolog (some clause concludes them)
        self.asked = (key in by_head, comp_key in by_head)
        self.clauses: list[Clause] = []
        self.text = ""
        if any(self.asked):
            keys = [k for k, a in zip((key, comp_key), self.asked, strict=True) if a]
            kept = _relevant(clauses, by_head, keys)
            self.clauses = [clauses[i] for i in kept]
            places = ",".join(
                [str(table.setdefault(clause_json(c), len(table) + 1)) for c in self.clauses]
            )
            lits = (goal, goal.complement())
            queries = ",".join([query_json(g) for g, a in zip(lits, self.asked, strict=True) if a])
            self.text = f"[[{places}],[{queries}]]"

    def judge(self, reply: JSON, limits: Limits) -> Judgement:
        """The judgement from the item's reply ``["ok", [[status, flat proof], ...]]``."""
        parts = cast(list[JSON], reply)
        if parts[0] != "ok":
            return _error(self.goal, f"Prolog: {parts[1]}")
        results = iter(cast(list[Attempt], parts[1]))
        goal, comp = self.goal, self.goal.complement()
        p = self._attempt(goal, next(results) if self.asked[0] else None, limits)
        q = self._attempt(comp, next(results) if self.asked[1] else None, limits)
        return judgement(goal, p, q)

    def _attempt(self, goal: Literal, result: Attempt | None, limits: Limits) -> Proof:
        if result is None:
            return not_concluded(goal)
        status, flat = result
        if not flat:
            return not_proved(goal, status, limits)
        return Proof(True, _decode(flat, self.clauses))


def _decode(flat: list[JSON], clauses: list[Clause]) -> ProofNode:
    """The proof tree of a flat proof: per node in preorder, the clause id (from 1), the number
    of arguments of its goal, the arguments (each a flat term), the number of children. Read
    with an explicit stack: a proof of any depth."""
    pos = 0
    counts = cast(list[int], flat)  # the same list, read where it holds ids and counts
    texts: dict[int, str] = {}
    # open nodes: (goal text, clause id, children to come, children read so far)
    stack: list[tuple[str, int, int, list[ProofNode]]] = []
    while True:
        cid, n = counts[pos], counts[pos + 1]
        args = cast(list[list[JSON]], flat[pos + 2 : pos + 2 + n])
        k = counts[pos + 2 + n]
        pos += 3 + n
        head = clauses[cid - 1].head
        if n:
            parts = [a[0] if len(a) == 1 and type(a[0]) is str else term_text(a) for a in args]
            core = f"{head.predicate}({', '.join(parts)})"
        else:
            core = head.predicate
        goal = "¬" + core if head.negated else core
        if k:
            stack.append((goal, cid, k, []))
            continue
        node = _node(goal, cid, (), clauses, texts)
        while stack:
            goal, cid, k, kids = stack[-1]
            kids.append(node)
            if len(kids) < k:
                break
            stack.pop()
            node = _node(goal, cid, tuple(kids), clauses, texts)
        else:
            return node


def _node(
    goal: str, cid: int, kids: tuple[ProofNode, ...], clauses: list[Clause], texts: dict[int, str]
) -> ProofNode:
    clause = clauses[cid - 1]
    text = texts.get(cid)
    if text is None:
        texts[cid] = text = clause_text(clause)
    return ProofNode(goal, clause.label or text, text, kids)


def _error(goal: Literal, message: str) -> Judgement:
    reason = f"could not ask {literal_text(goal)}: {message}"
    return Judgement(Verdict.UNKNOWN, None, "prolog", reason, evidence={"error": message})


def _size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8"))


class _Call:
    """The items of one Prolog call: the clauses they share, numbered from 1, and the items;
    the JSON stays within ``Limits.input_bytes``."""

    def __init__(self) -> None:
        self.table: dict[str, int] = {}
        self.sent: list[tuple[int, _Item]] = []
        self.size = 6  # [[],[]]

    def text(self) -> str:
        return f"[[{','.join(self.table)}],[{','.join([item.text for _, item in self.sent])}]]"


def _chunk(items: Sequence[tuple[Sequence[Clause], Literal]], limits: Limits) -> list[Judgement]:
    """Answers of one chunk (one Prolog call for the items that need Prolog, or more when their
    JSON would be larger than ``limits.input_bytes``; an item larger than that on its own is
    answered UNKNOWN with the InputError)."""
    out: dict[int, Judgement] = {}
    # id(clauses) -> None when seen once, its index by head relation when twice
    shared: dict[int, dict[Key, list[int]] | None] = {}
    call = _Call()
    for i, (clauses, goal) in enumerate(items):
        by_head = shared.get(id(clauses))
        if by_head is None:
            seen = id(clauses) in shared
            by_head = _by_head(clauses)
            shared[id(clauses)] = by_head if seen else None
        for attempt in (0, 1):
            before = len(call.table)
            try:
                item = _Item(clauses, goal, by_head, call.table)
            except InputError as exc:
                out[i] = _error(goal, str(exc))
                break
            if not item.text:
                out[i] = judgement(goal, not_concluded(goal), not_concluded(goal.complement()))
                break
            added = list(call.table)[before:]
            size = _size(item.text) + sum(_size(c) + 1 for c in added) + 1
            if call.size + size <= limits.input_bytes:
                call.sent.append((i, item))
                call.size += size
                break
            for c in added:  # the call is full: send it, and try the item in a fresh one
                del call.table[c]
            if attempt == 0 and call.sent:
                _send(call, limits, out)
                call = _Call()
                continue
            message = (
                f"the question is {size:,} bytes of JSON, more than the bound of "
                f"{limits.input_bytes:,} bytes (Limits.input_bytes)"
            )
            out[i] = _error(goal, message)
            break
    if call.sent:
        _send(call, limits, out)
    return [out[i] for i in range(len(items))]


def _send(call: _Call, limits: Limits, out: dict[int, Judgement]) -> None:
    with LOCK:
        module = take_module()
        try:
            replies = ask_batch(module, call.text(), limits)
        finally:
            release_module(module)
    for (i, item), reply in zip(call.sent, replies, strict=True):
        out[i] = item.judge(reply, limits)


def ask_many(
    items: Iterable[tuple[Sequence[Clause], Literal]],
    *,
    limits: Limits = DEFAULT_LIMITS,
    chunk: int = CHUNK,
) -> list[Judgement]:
    """Answer each ``(clauses, goal)`` as ``KnowledgeBase(clauses, limits=limits).ask(goal)``
    does, in one Prolog call per ``chunk`` items; one judgement per item, in order.

    Raises:
        ConfigError: ``chunk`` is not a positive integer.
        BackendError: Prolog could not be started or the call itself broke (a failure inside
            one item is that item's UNKNOWN answer instead).
    """
    if isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1:
        raise ConfigError(f"chunk must be a positive integer, got {chunk!r}")
    pending = list(items)
    out: list[Judgement] = []
    for start in range(0, len(pending), chunk):
        out.extend(_chunk(pending[start : start + chunk], limits))
    return out
