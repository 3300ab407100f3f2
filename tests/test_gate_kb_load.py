"""The gate reads a knowledge source by its kind through one table of readers."""

from __future__ import annotations

import json

import pytest

from peirce.engine.fol import SolverLimits
from peirce.engine.prolog import Limits
from peirce.errors import InputError
from peirce.pipelines import gate as gate_module
from peirce.pipelines.gate import (
    READERS,
    Gate,
    KnowledgeKind,
    KnowledgeRead,
    KnowledgeSource,
    read_knowledge,
)
from peirce.server.openapi import SCHEMA


def test_every_kind_has_one_reader() -> None:
    assert set(READERS) == set(KnowledgeKind)


def test_an_unknown_kind_is_an_input_error_naming_the_kinds() -> None:
    with pytest.raises(InputError) as err:
        KnowledgeSource.from_json({"kind": "owl", "premises": ["a."]})
    assert "'owl'" in err.value.message
    assert err.value.expected == "text or prolog or logiclm or rdf or fol"
    with pytest.raises(InputError):
        KnowledgeSource("sql", ("a.",))  # type: ignore[arg-type]


def test_the_kind_is_a_string_on_the_wire() -> None:
    ks = KnowledgeSource.from_json({"kind": "prolog", "premises": "red(bob)."})
    assert ks.kind is KnowledgeKind.PROLOG
    assert json.loads(json.dumps(ks.to_json()))["kind"] == "prolog"
    # the id of a knowledge base does not depend on how its kind was given
    assert KnowledgeSource("prolog", ks.premises).id == ks.id  # type: ignore[arg-type]


def test_the_published_schema_lists_the_registered_kinds() -> None:
    kb = SCHEMA["components"]["schemas"]["KnowledgeBase"]
    assert kb["properties"]["kind"]["enum"] == [k.value for k in KnowledgeKind]


def test_the_gate_reads_through_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[KnowledgeKind] = []
    prolog = READERS[KnowledgeKind.PROLOG]

    def spy(source: KnowledgeSource, limits: Limits, solver: SolverLimits) -> KnowledgeRead:
        seen.append(source.kind)
        return prolog(source, limits, solver)

    monkeypatch.setitem(READERS, KnowledgeKind.PROLOG, spy)
    with Gate(KnowledgeSource(KnowledgeKind.PROLOG, ("red(bob).",))) as g:
        assert g.check("Bob is red.\nANSWER: True", question="Bob is red.").action.value == "pass"
    assert seen == [KnowledgeKind.PROLOG]
    # a kind with no reader is refused, naming the kinds that have one
    monkeypatch.delitem(READERS, KnowledgeKind.RDF)
    with pytest.raises(InputError) as err:
        read_knowledge(KnowledgeSource(KnowledgeKind.RDF, ("x",)), Limits(), SolverLimits())
    assert "'rdf'" in err.value.message and "rdf" not in (err.value.expected or "")


def test_a_kind_has_one_reader_only() -> None:
    with pytest.raises(ValueError, match="registered already"):
        gate_module.reader(KnowledgeKind.TEXT)(READERS[KnowledgeKind.TEXT])
