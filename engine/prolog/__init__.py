"""SWI-Prolog as peirce's Horn-clause engine: the public interface of its parts.

- :mod:`~peirce.engine.prolog.native`: libswipl's functions bound with ctypes, where SWI-Prolog
  is (found once and kept) and ``kb/meta.pl`` compiled to a checked ``.qlf``;
- :mod:`~peirce.engine.prolog.runtime`: the one engine of the process (started on first use),
  its lock, the limits of every query and the JSON boundary (:func:`call_json`); the string
  buffers of every call released;
- :mod:`~peirce.engine.prolog.codec`: clauses and terms to and from that JSON;
- :mod:`~peirce.engine.prolog.text`: ``.pl`` programs and queries read as data (never run), a
  whole text or a piece at a time (``text.read_chunks``);
- :mod:`~peirce.engine.prolog.pool`: the Prolog modules knowledge bases live in, emptied and
  reused;
- :mod:`~peirce.engine.prolog.proofs`: :class:`Proof`, one proof attempt, and the judgement
  (ENTAILED / REFUTED / UNKNOWN) made of the attempts at a goal and at its complement;
- :mod:`~peirce.engine.prolog.source`: :class:`LoadedProgram`, a program a knowledge base read
  as text (Prolog stored its clauses itself; its text kept compressed, a clause read again by
  its id);
- :mod:`~peirce.engine.prolog.store`: the clauses a knowledge base keeps on the Python side (the
  objects given to ``add``; those streamed packed per chunk, rebuilt when asked; the programs
  read as text);
- :mod:`~peirce.engine.prolog.saved`: knowledge bases saved as a ``.qlf`` (checked by SHA-256)
  and loaded back;
- :mod:`~peirce.engine.prolog.kb`: :class:`KnowledgeBase`, one Prolog module per knowledge base,
  proofs by the meta-interpreter of ``kb/meta.pl``;
- :mod:`~peirce.engine.prolog.batch`: :func:`ask_many`, many questions in one Prolog call.

Each part imports only parts listed above it.

Import from here; the parts talk to each other through the names they export, never through
private ones.
"""

from __future__ import annotations

from peirce.engine.prolog.batch import ask_many
from peirce.engine.prolog.kb import Answers, KnowledgeBase, Solution, unifiable
from peirce.engine.prolog.proofs import Proof
from peirce.engine.prolog.runtime import DEFAULT_LIMITS, Limits, call_json
from peirce.engine.prolog.source import LoadedProgram
from peirce.engine.prolog.text import (
    Program,
    export_program,
    load_pl_text,
    parse_program,
    parse_query,
    swipl_top_level,
)

__all__ = [
    "DEFAULT_LIMITS",
    "Answers",
    "KnowledgeBase",
    "Limits",
    "LoadedProgram",
    "Program",
    "Proof",
    "Solution",
    "ask_many",
    "call_json",
    "export_program",
    "load_pl_text",
    "parse_program",
    "parse_query",
    "swipl_top_level",
    "unifiable",
]
