"""Entailment in the engine: symbolic proof, and a cascade of models asked in order.

Every model answers with a :class:`~peirce.results.Judgement`: a verdict (ENTAILED / REFUTED /
UNKNOWN), the probability that the premises entail the hypothesis, the backend that decided, a
reason and evidence. The probability is what ARES (:mod:`peirce.engine.stability`) consumes:

- ENTAILED carries 1.0 (symbolic) or the judge's probability; REFUTED carries 0.0.
- UNKNOWN **with** a probability is a decided "not entailed": the symbolic backend searched the
  complete translation and found no proof (Horn resolution is complete, so the premises do not
  entail the hypothesis: probability 0.0), or the LLM judge rated it at or below Neutral.
- UNKNOWN **without** a probability (``None``) is undecided: a premise or the hypothesis could not
  be translated, a limit was hit, the premises contradict each other, the LLM call failed, or the
  judge's reply could not be parsed (the raw reply is kept in ``evidence``). Nothing is guessed.

Models here:

- :class:`SymbolicEntailment`: translates premises and hypothesis with the translator it is given
  (a :data:`~peirce.protocols.ClauseTranslator` from the layer above; or takes clauses given for a
  text in ``formal``) and proves the hypothesis with the Prolog engine; a rule hypothesis is
  entailed when its head is provable with its body skolemised as extra facts. Deterministic: its
  answers are 0 or 1. Fast paths answer as Prolog does (the tests hold them to its verdicts and
  proofs; Prolog stays the checker of record): propositional premises and claims (no literal has
  arguments, as in ClaimTrees chains) by a least model over literal numbers grown claim by claim
  (:class:`_Propositional`); other ground premises by
  :class:`~peirce.engine.ground_model.GroundModel`; the rest goes to Prolog.
- :class:`Cascade`: models asked in order; the LLM only where the symbolic answer is undecided.
  The deciding backend is the Judgement's ``backend``; :attr:`Cascade.decided` counts them.

The LLM judge is :class:`peirce.llm.judge.LLMJudge`; models by name (``symbolic``, ``llm``,
``cascade``) and the controlled-English translator are wired in
:mod:`peirce.pipelines.entailment`.

Kept whole (past 400 lines): the symbolic model's ground paths (least models grown claim by
claim for facts, propositional or not, one derived anew for rules) and its Prolog path answer
alike and are read together; the cascade is short.

References:
    Weiqiu You, Anton Xue, Shreya Havaldar, Delip Rao, Helen Jin, Chris Callison-Burch, Eric
    Wong. "Probabilistic Soundness Guarantees in LLM Reasoning Chains" (ARES).
"""

from __future__ import annotations

import heapq
import threading
from collections import Counter, OrderedDict, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from peirce.errors import ConfigError, ParseError
from peirce.logic import Clause, Literal, is_ground, skolemise
from peirce.protocols import ClauseTranslator, EntailmentModel
from peirce.results import Judgement, ProofNode, Verdict

if TYPE_CHECKING:
    from peirce.engine.ground_model import GroundModel
    from peirce.engine.prolog import KnowledgeBase, Limits, Proof

__all__ = ["Cascade", "EntailmentModel", "SymbolicEntailment"]


class SymbolicEntailment:
    """Entailment by proof: translated premises prove the hypothesis (or its negation).

    Args:
        translate: the translator of a text into clauses (or the reason it could not be
            translated); without one, only the texts in ``formal`` are understood.
        formal: clauses already known for some texts (e.g. built from structured data); a text
            found here is not sent to the translator.
        limits: Prolog limits (:class:`peirce.engine.prolog.Limits`), default limits when None.
    """

    name = "symbolic"
    deterministic = True

    def __init__(
        self,
        translate: ClauseTranslator | None = None,
        *,
        formal: Mapping[str, Sequence[Clause]] | None = None,
        limits: Limits | None = None,
        cached_kbs: int = 8,
        max_extra: int = 12,
        ground_fast_path: bool = True,
        propositional_fast_path: bool = True,
    ) -> None:
        self.translate = translate
        self.formal = {k: tuple(v) for k, v in (formal or {}).items()}
        self.limits = limits
        self.calls = 0
        self.kbs_built = 0
        self._kbs: OrderedDict[frozenset[str], KnowledgeBase] = OrderedDict()
        self._cached_kbs, self._max_extra = cached_kbs, max_extra
        self._lock = threading.RLock()
        self.ground_fast_path = ground_fast_path
        self.propositional_fast_path = ground_fast_path and propositional_fast_path
        self._compiled: dict[str, tuple[_Ground, ...] | None] = {}
        # text -> its rules and the reason it was not (wholly) translated; None: not propositional
        self._propositional: dict[str, tuple[tuple[_Ground, ...], str | None] | None] = {}
        self._texts: dict[int, str] = {}  # literal number -> its text
        self._complements: dict[int, int] = {}  # literal number -> its complement's
        self._goals: dict[str, tuple[int, ...] | None] = {}  # claim -> its facts' literals
        # propositional models: [premises, model, reasons of those not translated], last used last
        self._props: list[tuple[tuple[str, ...], _Propositional, list[str]]] = []
        self._ids: dict[Literal, int] = {}
        self._lits: list[Literal] = []
        self._shown: dict[_Rule, str] = {}  # a propositional rule -> its clause's text
        # least models of ground premises, by the premises they hold (in order)
        self._models: OrderedDict[tuple[str, ...], tuple[GroundModel, list[str]]] = OrderedDict()

    def close(self) -> None:
        """Free the knowledge bases kept for reuse."""
        with self._lock:
            kbs, self._kbs = list(self._kbs.values()), OrderedDict()
            self._models = OrderedDict()
            self._props = []
        for kb in kbs:
            kb.close()

    def __enter__(self) -> SymbolicEntailment:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _kb_for(self, premises: Sequence[str]) -> tuple[KnowledgeBase, list[str]]:
        """A knowledge base holding most of ``premises`` and the premises it lacks.

        Premise sets in a chain grow claim by claim, so a knowledge base built for one set
        serves the next ones with the few new claims passed as extra clauses.
        """
        want = frozenset(premises)
        best: frozenset[str] | None = None
        for key in self._kbs:
            if key <= want and (best is None or len(key) > len(best)):
                best = key
        if best is not None and len(want) - len(best) <= self._max_extra:
            self._kbs.move_to_end(best)
            return self._kbs[best], [p for p in premises if p not in best]
        from peirce.engine.prolog import DEFAULT_LIMITS, KnowledgeBase

        clauses = [c for p in dict.fromkeys(premises) for c in self.clauses(p)[0]]
        kb = KnowledgeBase(clauses, limits=DEFAULT_LIMITS if self.limits is None else self.limits)
        self.kbs_built += 1
        self._kbs[want] = kb
        while len(self._kbs) > max(1, self._cached_kbs):
            self._kbs.popitem(last=False)[1].close()
        return kb, []

    def clauses(self, text: str) -> tuple[tuple[Clause, ...], str | None]:
        """The clauses of one claim, or why it could not be translated."""
        if text in self.formal:
            return self.formal[text], None
        if self.translate is None:
            return (), f"not translated: {text!r} (no translator given)"
        try:
            return self.translate(text)
        except ParseError as exc:
            return (), f"not translated: {exc}"

    def entails(self, premises: Sequence[str], hypothesis: str) -> Judgement:
        self.calls += 1
        if self.propositional_fast_path:
            with self._lock:
                facts = self._propositional_goals(hypothesis)
                grown = None if facts is None else self._propositional_model(premises)
                if facts is not None and grown is not None:
                    return self._decide_propositional(grown[0], facts, grown[1])
        goals, why = self.clauses(hypothesis)
        if why is not None or not goals:
            return Judgement(Verdict.UNKNOWN, None, self.name, f"hypothesis {why}")
        if self.ground_fast_path and all(g.is_fact for g in goals):
            with self._lock:
                held = self._model_for(premises)
                if held is not None:
                    return self._decide_facts(held[0], goals, held[1])
        translated = [self.clauses(p) for p in premises]
        gaps = [why for _, why in translated if why is not None]
        with self._lock:
            compiled = [
                self._compile(p, cs) for p, (cs, _) in zip(premises, translated, strict=True)
            ]
            ground = (
                None
                if not self.ground_fast_path or any(c is None for c in compiled)
                else [r for c in compiled for r in c or ()]
            )
            return self._decide(premises, goals, gaps, ground)

    def _id(self, lit: Literal) -> int:
        n = self._ids.get(lit)
        if n is None:
            n = self._ids[lit] = len(self._lits)
            self._lits.append(lit)
        return n

    def _compile(self, text: str, clauses: Sequence[Clause]) -> tuple[_Ground, ...] | None:
        """The clauses of a text as rules over literal numbers; ``None`` if not ground."""
        if text not in self._compiled:
            ground = all(is_ground(c.head) and all(map(is_ground, c.body)) for c in clauses)
            self._compiled[text] = (
                tuple(((self._id(c.head), tuple(map(self._id, c.body))), c) for c in clauses)
                if ground
                else None
            )
        return self._compiled[text]

    def _model_for(self, premises: Sequence[str]) -> tuple[GroundModel, list[str]] | None:
        """The least model of ground premises and the reasons of those not translated, grown
        from the model of the longest list of premises asked before that these begin with;
        ``None`` when a premise is not ground or the premises are not Datalog.

        Premise lists in a chain grow claim by claim (ARES asks each claim with the claims kept
        before it), so each question adds a claim or two to the last model: the least model is
        kept up to date by unit propagation from the new facts alone (Prolog stays the checker
        of record: the tests hold this path to its answers). A model grows in place: it is kept
        under its longer list.
        """
        from peirce.engine.ground_model import GroundModel

        key = tuple(premises)
        best: tuple[str, ...] = ()
        last = next(reversed(self._models), ())  # the model grown last: most often the one
        if len(last) <= len(key) and key[: len(last)] == last:
            best = last
        else:  # any list these begin with gives the same model; the longest, the least work
            for held in self._models:
                if len(best) < len(held) <= len(key) and key[: len(held)] == held:
                    best = held
        if best and len(best) == len(key):  # asked again: nothing to add, its proofs kept
            self._models.move_to_end(best)
            return self._models[best]
        clauses: list[Clause] = []
        gaps: list[str] = []
        for p in key[len(best) :]:
            cs, why = self.clauses(p)
            if self._compile(p, cs) is None:
                return None
            clauses.extend(cs)
            if why is not None:
                gaps.append(why)
        if best:
            model, before = self._models[best]
            gaps = before + gaps
            if model.extend(clauses):
                del self._models[best]
                self._models[key] = (model, gaps)
                return model, gaps
            clauses = [c for p in best for c in self.clauses(p)[0]] + clauses
        built = GroundModel.build(clauses)
        if built is None:
            return None
        self._models[key] = (built, gaps)
        while len(self._models) > max(1, self._cached_kbs):
            self._models.popitem(last=False)
        return built, gaps

    def _decide_facts(
        self, model: GroundModel, goals: Sequence[Clause], gaps: list[str]
    ) -> Judgement:
        """:meth:`_decide` for facts asked of ground premises, from their least model: proved
        with the proof of a shallowest derivation (the earliest clause first), as the Prolog
        search finds it; refuted when the complement is derived."""
        proofs: list[ProofNode] = []
        open_reasons: list[str] = []
        for goal in goals:
            head = goal.head if is_ground(goal.head) else skolemise(goal, "h")[0]
            if model.holds(head):
                found = model.proof(head).proof
                proofs.append(found or ProofNode(str(head)))
                continue
            if model.holds(head.complement()):
                because = f"the premises prove {head.complement()}"
                tree = model.proof(head.complement()).proof
                return Judgement(Verdict.REFUTED, 0.0, self.name, because, tree)
            open_reasons.append(f"{head} is not derivable")
        return self._verdict(proofs, open_reasons, False, gaps)

    # -- the propositional path: premises and claims whose literals have no arguments
    def _rules_of(self, text: str) -> tuple[tuple[_Ground, ...], str | None] | None:
        """The rules of a text over literal numbers and why it was not (wholly) translated;
        ``None`` when one of its literals has arguments."""
        if text in self._propositional:
            return self._propositional[text]
        clauses, why = self.clauses(text)
        propositional = all(not c.head.args and not any(b.args for b in c.body) for c in clauses)
        compiled = self._compile(text, clauses) if propositional else None
        held = None if compiled is None else (compiled, why)
        self._propositional[text] = held
        return held

    def _propositional_goals(self, text: str) -> tuple[int, ...] | None:
        """The literal numbers of a hypothesis's facts; ``None`` unless it is translated whole
        into propositional facts."""
        if text in self._goals:
            return self._goals[text]
        held = self._rules_of(text)
        goals = None
        if held is not None and held[0] and held[1] is None and all(not b for (_, b), _ in held[0]):
            goals = tuple(head for (head, _), _ in held[0])
        self._goals[text] = goals
        return goals

    def _propositional_model(
        self, premises: Sequence[str]
    ) -> tuple[_Propositional, list[str]] | None:
        """The least model of propositional premises and the reasons of those not translated;
        ``None`` when a premise is not propositional.

        As :meth:`_model_for` does for ground premises: the model of the longest list of
        premises asked before that these begin with is grown in place by the premises that
        follow (ARES asks each claim with the claims kept before it, so most questions add a
        claim or none); a model is kept under its longer list."""
        key = tuple(premises)
        props = self._props
        at, length = -1, -1
        if props:  # the model grown last is most often the one
            last, model, before = props[-1]
            if last == key:  # asked again: taken as it is
                return model, before
            if len(last) < len(key) and key[: len(last)] == last:
                at, length = len(props) - 1, len(last)
        if at < 0:
            for i, (held, _, _) in enumerate(props):
                if length < len(held) <= len(key) and key[: len(held)] == held:
                    at, length = i, len(held)
        rules: list[_Ground] = []
        gaps: list[str] = []
        for p in key[max(length, 0) :]:
            found = self._rules_of(p)
            if found is None:
                return None
            rules.extend(found[0])
            if found[1] is not None:
                gaps.append(found[1])
        if at >= 0:
            _, model, before = props.pop(at)
            if length < len(key):
                model.extend(rules)
                gaps = before + gaps
            else:
                gaps = before
        else:
            model = _Propositional(self._shown)
            model.extend(rules)
            while len(props) >= max(1, self._cached_kbs):
                props.pop(0)
        props.append((key, model, gaps))
        return model, gaps

    def _decide_propositional(
        self, model: _Propositional, goals: Sequence[int], gaps: list[str]
    ) -> Judgement:
        """:meth:`_decide_facts` for propositional facts asked of propositional premises: the
        same answers and proofs, from a least model over literal numbers."""
        if len(goals) == 1 and goals[0] in model.level:  # one fact, proved (most claims)
            return Judgement(
                Verdict.ENTAILED, 1.0, self.name, "proved", model.proof(goals[0], self._text)
            )
        proofs: list[ProofNode] = []
        open_reasons: list[str] = []
        for goal in goals:
            if goal in model.level:
                proofs.append(model.proof(goal, self._text))
                continue
            neg = self._complements.get(goal)
            if neg is None:
                neg = self._complements[goal] = self._id(self._lits[goal].complement())
            if neg in model.level:
                because = f"the premises prove {self._text(neg)}"
                tree = model.proof(neg, self._text)
                return Judgement(Verdict.REFUTED, 0.0, self.name, because, tree)
            open_reasons.append(f"{self._text(goal)} is not derivable")
        return self._verdict(proofs, open_reasons, False, gaps)

    def _text(self, lit: int) -> str:
        text = self._texts.get(lit)
        if text is None:
            from peirce.engine.prolog.codec import literal_text

            text = self._texts[lit] = literal_text(self._lits[lit])
        return text

    def _prove(self, premises: Sequence[str], goal: Literal, assumed: tuple[Clause, ...]) -> Proof:
        kb, missing = self._kb_for(premises)
        extra = tuple(c for p in missing for c in self.clauses(p)[0])
        return kb.prove(goal, extra=extra + assumed)

    def _decide(
        self,
        premises: Sequence[str],
        goals: Sequence[Clause],
        gaps: list[str],
        ground: list[_Ground] | None,
    ) -> Judgement:
        """Prove each goal. Ground premises are decided in Python, in time linear in their size:
        the least model says whether the goal (or its complement) is derivable and the proof is
        read off the order in which it derived each literal, with no Prolog call (Prolog remains
        the checker of record: the tests hold this path to its answers). Premises with variables
        go to Prolog."""
        proofs: list[ProofNode] = []
        open_reasons: list[str] = []
        limited = False
        for goal in goals:
            head, body = skolemise(goal, "h")
            assumed = tuple(Clause(b, label="assumed") for b in body)
            if ground is not None:
                rules = [*ground, *(((self._id(a.head), ()), a) for a in assumed)]
                model = _least_model([r for r, _ in rules])
                if self._id(head) in model:
                    proofs.append(_ground_proof(self._id(head), rules, model, self._lits))
                    continue
                neg = self._id(head.complement())
                if not goal.body and neg in model:
                    because = f"the premises prove {head.complement()}"
                    tree = _ground_proof(neg, rules, model, self._lits)
                    return Judgement(Verdict.REFUTED, 0.0, self.name, because, tree)
                open_reasons.append(f"{head} is not derivable")
                continue
            why = f"{head} is not derivable"
            proof = self._prove(premises, head, assumed)
            if proof.proved:
                proofs.append(proof.proof or ProofNode(str(head)))
                continue
            limited = limited or proof.limit_hit
            why = proof.reason or why
            if not goal.body:
                refuted = self._prove(premises, head.complement(), ())
                if refuted.proved:
                    because = f"the premises prove {head.complement()}"
                    return Judgement(Verdict.REFUTED, 0.0, self.name, because, refuted.proof)
                limited = limited or refuted.limit_hit
            open_reasons.append(why)
        return self._verdict(proofs, open_reasons, limited, gaps)

    def _verdict(
        self, proofs: list[ProofNode], open_reasons: list[str], limited: bool, gaps: list[str]
    ) -> Judgement:
        if not open_reasons:
            tree = proofs[0] if len(proofs) == 1 else ProofNode("and", None, None, tuple(proofs))
            return Judgement(Verdict.ENTAILED, 1.0, self.name, "proved", tree)
        reason = "; ".join(open_reasons)
        if limited or gaps:
            detail = "; ".join(gaps) if gaps else reason
            return Judgement(Verdict.UNKNOWN, None, self.name, f"undecided: {detail}")
        return Judgement(
            Verdict.UNKNOWN,
            0.0,
            self.name,
            f"not entailed: {reason} (complete search over the translated premises)",
            evidence={"complete": True},
        )


_Rule = tuple[int, tuple[int, ...]]  # a ground clause over literal numbers: (head, body)
_Ground = tuple[_Rule, Clause]  # the rule and the clause it came from


class _Propositional:
    """The least model of ground clauses over literal numbers, grown in place, with each
    literal's level (the height of its shallowest derivation, 0 for a fact) and its proof.

    What :class:`~peirce.engine.ground_model.GroundModel` does for Datalog clauses, without
    constants to instantiate over or to tell apart, so that a chain of propositional claims
    costs a few steps a claim: each rule fires once, when its body is derived (watch lists);
    a clause added later that derives a literal more shallowly lowers its level in a heap worked
    off only as far as a proof needs (:meth:`_settle`); the proof of a literal is the one
    ``GroundModel`` gives, a shallowest derivation with the earliest clause first (the tests
    hold the two, and Prolog, to the same answers and proofs).

    >>> from peirce.logic import Literal
    >>> a, b = Literal("a"), Literal("b")
    >>> m = _Propositional()
    >>> m.extend([((0, ()), Clause(a, label="A.")), ((1, (0,)), Clause(b, (a,), label="If a, b."))])
    >>> print(m.proof(1, ["a", "b"].__getitem__).render())
    b   [If a, b.]
      a   [A.]
    """

    __slots__ = ("by_head", "level", "need", "pending", "proofs", "rules", "shown", "uses")

    def __init__(self, shown: dict[_Rule, str] | None = None) -> None:
        self.rules: list[_Ground] = []
        # the text of a rule's clause, made when first shown: a function of its literals, so
        # models over the same literal numbers may share it (``shown``)
        self.shown: dict[_Rule, str] = {} if shown is None else shown
        self.by_head: dict[int, list[int]] = {}  # literal -> the rules that derive it
        self.uses: dict[int, list[int]] = {}  # literal -> the rules with it in their body
        self.need: list[int] = []  # per rule, the distinct body literals not derived yet
        self.level: dict[int, int] = {}  # derived literal -> its level (an upper bound)
        self.pending: list[tuple[int, int]] = []  # (height, literal): lower levels to settle
        self.proofs: dict[int, ProofNode] = {}  # literal -> its proof, until the model grows

    def extend(self, rules: Iterable[_Ground]) -> None:
        """Add rules and derive what they give."""
        work: deque[tuple[int, int]] = deque()
        for rule in rules:
            self._add(rule, work)
        if work:
            self.proofs = {}  # levels may change: proofs are chosen anew
        self._relax(work)

    def _add(self, rule: _Ground, work: deque[tuple[int, int]]) -> None:
        i = len(self.rules)
        self.rules.append(rule)
        (head, body), _ = rule
        self.by_head.setdefault(head, []).append(i)
        level = self.level
        if not body:
            self.need.append(0)
            work.append((head, 0))
            return
        missing = 0
        uses = self.uses
        for b in set(body):
            if b not in level:
                missing += 1
            uses.setdefault(b, []).append(i)
        self.need.append(missing)
        if not missing:
            work.append((head, 1 + max(map(level.__getitem__, body))))

    def _relax(self, work: deque[tuple[int, int]]) -> None:
        """Derive what ``work`` (literals with the height of a derivation) gives: a literal
        derived anew gets its level at once, a lower level of one derived before waits in the
        heap until a proof needs it."""
        level, need, rules, uses, pending = (
            self.level,
            self.need,
            self.rules,
            self.uses,
            self.pending,
        )
        while work:
            lit, height = work.popleft()
            old = level.get(lit)
            if old is not None:
                if height < old:
                    heapq.heappush(pending, (height, lit))
                continue
            level[lit] = height
            for i in uses.get(lit, ()):
                need[i] -= 1
                if need[i] == 0:
                    (head, body), _ = rules[i]
                    work.append((head, 1 + max(map(level.__getitem__, body))))

    def _settle(self, goal: int) -> None:
        """Lower levels until every level below ``goal``'s (and ``goal``'s) is exact: the heap
        is worked off, lowest first, while it holds heights below ``goal``'s level (a
        derivation through a waiting literal is at least as high as its height)."""
        level, need, rules, uses, pending = (
            self.level,
            self.need,
            self.rules,
            self.uses,
            self.pending,
        )
        while pending and pending[0][0] < level[goal]:
            height, lit = heapq.heappop(pending)
            if height >= level[lit]:
                continue
            level[lit] = height
            for i in uses.get(lit, ()):
                if need[i] == 0:
                    (head, body), _ = rules[i]
                    h = 1 + max(map(level.__getitem__, body))
                    if h < level[head]:
                        heapq.heappush(pending, (h, head))

    def _choose(self, lit: int) -> int:
        """The earliest rule of a shallowest derivation of ``lit``: a fact at level 0, else a
        rule whose body is one level down."""
        level, rules = self.level, self.rules
        height = level[lit]
        for i in self.by_head[lit]:
            top = -1  # the highest level in the body (-1: a fact)
            for b in rules[i][0][1]:
                h = level.get(b)
                if h is None:
                    break
                top = max(top, h)
            else:
                if top == height - 1:
                    return i
        raise AssertionError(f"literal {lit} is in the model but no rule derives it")

    def proof(self, goal: int, text_of: Callable[[int], str]) -> ProofNode:
        """The proof of a derived literal (``text_of``: a literal's text), built with a stack of
        its own and each literal's proof once."""
        self._settle(goal)
        done, rules, shown = self.proofs, self.rules, self.shown
        stack: list[tuple[int, int]] = [(goal, -1)]  # (literal, its rule; -1: not chosen yet)
        while stack:
            lit, chosen = stack.pop()
            if lit in done:
                continue
            if chosen < 0:
                chosen = self._choose(lit)
                waiting = False
                for b in reversed(rules[chosen][0][1]):  # their proofs first, then this one's
                    if b not in done:
                        if not waiting:
                            stack.append((lit, chosen))
                            waiting = True
                        stack.append((b, -1))
                if waiting:
                    continue
            rule, clause = rules[chosen]
            text = shown.get(rule)
            if text is None:
                from peirce.engine.prolog.codec import clause_text

                text = shown[rule] = clause_text(clause)
            kids = tuple(map(done.__getitem__, rule[1]))
            done[lit] = ProofNode(text_of(lit), clause.label or text, text, kids)
        return done[goal]


def _least_model(rules: Sequence[_Rule]) -> dict[int, int]:
    """Every literal ground Horn clauses derive (strong negation: a relation of its own), in
    time linear in their size, each with its rank: the order in which it was derived.

    >>> sorted(_least_model([(1, ()), (2, (1,)), (3, (2, 4))]))
    [1, 2]
    """
    have: dict[int, int] = {}
    queue = [head for head, body in rules if not body]
    need: list[int] = []
    waiting: dict[int, list[int]] = {}
    for i, (_, body) in enumerate(rules):
        distinct = set(body)
        need.append(len(distinct))
        for b in distinct:
            waiting.setdefault(b, []).append(i)
    while queue:
        lit = queue.pop()
        if lit in have:
            continue
        have[lit] = len(have)
        for i in waiting.get(lit, ()):
            need[i] -= 1
            if need[i] == 0:
                queue.append(rules[i][0])
    return have


def _ground_proof(
    goal: int, rules: Sequence[_Ground], rank: Mapping[int, int], lits: Sequence[Literal]
) -> ProofNode:
    """The proof of a derived literal, read off the least model: for each literal, the first
    clause (in the premises' order, as Prolog would try them) whose body was derived before it.
    Built with a stack of its own (a chain of any length) and each literal's proof built once.

    >>> from peirce.logic import Const
    >>> a, b = (Literal(p, (Const("x"),)) for p in "ab")
    >>> rules = [((0, ()), Clause(a, label="A.")), ((1, (0,)), Clause(b, (a,), label="If a, b."))]
    >>> print(_ground_proof(1, rules, _least_model([r for r, _ in rules]), [a, b]).render())
    b(x)   [If a, b.]
      a(x)   [A.]
    """
    from peirce.engine.prolog.codec import clause_text, literal_text

    by_head: dict[int, list[int]] = {}
    for i, ((head, _), _) in enumerate(rules):
        by_head.setdefault(head, []).append(i)

    def rule_of(lit: int) -> int:
        for i in by_head[lit]:
            if all(rank.get(b, len(rank)) < rank[lit] for b in rules[i][0][1]):
                return i
        raise AssertionError(f"literal {lit} is in the model but no clause derives it")

    done: dict[int, ProofNode] = {}
    stack: list[tuple[int, bool]] = [(goal, False)]
    while stack:
        lit, expanded = stack.pop()
        if lit in done:
            continue
        i = rule_of(lit)
        (_, body), clause = rules[i]
        if not expanded:
            stack.append((lit, True))
            stack.extend((b, False) for b in reversed(body) if b not in done)
            continue
        text = clause_text(clause)
        kids = tuple(done[b] for b in body)
        done[lit] = ProofNode(literal_text(lits[lit]), clause.label or text, text, kids)
    return done[goal]


# --------------------------------------------------------------------------------- cascade
class Cascade:
    """Backends asked in order; the first that decides (gives a probability) answers.

    Args:
        backends: entailment models, in order (by name, and the default of symbolic then the LLM
            judge when one is configured: :func:`peirce.pipelines.entailment.cascade`).
    """

    name = "cascade"

    def __init__(self, backends: Sequence[EntailmentModel]) -> None:
        for b in backends:
            if not isinstance(b, EntailmentModel):
                raise ConfigError(
                    f"{b!r} is not an entailment model (it needs entails/deterministic)"
                )
        self.backends: tuple[EntailmentModel, ...] = tuple(backends)
        if not self.backends:
            raise ConfigError("a cascade needs at least one backend")
        self.deterministic = all(b.deterministic for b in self.backends)
        self.decided: Counter[str] = Counter()
        self._lock = threading.Lock()

    def entails(self, premises: Sequence[str], hypothesis: str) -> Judgement:
        trail: list[dict[str, str]] = []
        last: Judgement | None = None
        for backend in self.backends:
            last = backend.entails(premises, hypothesis)
            trail.append(
                {"backend": last.backend, "verdict": last.verdict.value, "reason": last.reason}
            )
            if last.probability is not None:
                break
        if last is None:  # pragma: no cover - excluded by __init__
            raise ConfigError("a cascade needs at least one backend")
        decider = last.backend if last.probability is not None else "none"
        with self._lock:
            self.decided[decider] += 1
        evidence = dict(last.evidence)
        evidence["cascade"] = trail
        return Judgement(
            last.verdict, last.probability, last.backend, last.reason, last.proof, evidence
        )
