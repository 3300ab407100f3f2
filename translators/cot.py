"""Chains of thought as models write them -> steps and claims in controlled English.

The front end for free reasoning text: :func:`read_chain` cuts a chain into steps (list items,
"Step k:", Markdown, paragraphs, sentences; :mod:`.cot_segment`), reads the claims of each step
(discourse markers, cited premises, goals, answers, what is or is not known;
:mod:`.cot_discourse`) and rewrites each statement into the controlled English that
:mod:`.cnl` translates to Horn clauses (:mod:`.cot_english`). Deterministic; every claim keeps
its span in the original text, and a claim that is still not understood is kept as ``unread``
with the reason, never guessed.

>>> chain = read_chain(
...     "Let's think step by step. We want to evaluate if Charlie is smart. "
...     "From premise 3, we know that Charlie is red and quiet, so Charlie is smart.\\n"
...     "ANSWER: True")
>>> [(s.index, [(c.kind.value, c.cnl) for c in s.claims]) for s in chain.steps]
... # doctest: +NORMALIZE_WHITESPACE
[(1, []), (2, [('goal', 'Charlie is smart.')]),
 (3, [('statement', 'Charlie is red and quiet.'), ('statement', 'Charlie is smart.')]),
 (4, [('answer', None)])]
>>> chain.steps[2].claims[0].citations[0].premises, chain.answer.value, chain.goal
((3,), 'True', 'Charlie is smart.')
>>> claim = chain.steps[2].claims[1]
>>> claim.text, claim.span.start, claim.derived
('Charlie is smart', 125, True)

A claim outside what the front end reads stays ``unread``, with the reason:

>>> c = read_chain("Bob sings to the kind cat.").claims[0]
>>> c.kind.value, c.reason
('unread', "line 1, column 11: unexpected word 'to' (expected 'it', 'something', 'the', a name)")

A hedge asserts nothing: it is read as such, and never judged an error:

>>> read_chain("Bob might be kind.").claims[0].kind.value
'hedge'

References:
    Wei et al., "Chain-of-Thought Prompting Elicits Reasoning in Large Language Models",
    NeurIPS 2022 (the chains); Olausson et al., "LINC: A Neurosymbolic Approach for Logical
    Reasoning by Combining Language Models with First-Order Logic Provers", EMNLP 2023 (the
    recorded chains this front end is measured on).
"""

from __future__ import annotations

from peirce.cot import ChainStep, ChainText
from peirce.translators.cot_discourse import StepReader
from peirce.translators.cot_segment import segment

__all__ = ["read_chain"]


def read_chain(text: str) -> ChainText:
    """The steps of a chain of thought and the claims each makes (see the module docstring)."""
    reader = StepReader(text)
    steps = []
    for index, seg in enumerate(segment(text), start=1):
        claims = tuple(reader.read(seg))
        steps.append(ChainStep(index, seg.text, seg.span, claims))
    return ChainText(text, tuple(steps))
