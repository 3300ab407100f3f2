"""Entity mentions, normalisation, alignment and (subject, predicate, object) triples."""

from __future__ import annotations

import pytest

from peirce.errors import MissingDependencyError, ParseError
from peirce.pipelines.answer_graph import EntityIndex
from peirce.translators.triples import (
    entities_from_llm,
    has_verb,
    mentions,
    normalise,
    question_entities,
    spacy_available,
    triples,
    triples_from_llm,
)


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ("The Beatles", "beatles"),
        ("the beatles", "beatles"),
        ("THE BEATLES'", "beatles"),
        ("Ögedei Khan's", "ogedei khan"),
        ("F. W. Murnau", "f w murnau"),
        ("F.W. Murnau", "f w murnau"),
        ("Lost Gravity (roller coaster)", "lost gravity"),
        ("Procter & Gamble", "procter and gamble"),
        ("Ryu Hye-young", "ryu hye young"),
        ("An American in Paris", "american in paris"),
        ("“Rivière-Verte”", "riviere verte"),
        ("  ", ""),
    ],
)
def test_normalise_folds_case_accents_punctuation_articles_possessives(raw, key):
    assert normalise(raw) == key


def test_mentions_of_names_quotes_dates_numbers_and_anaphors():
    found = mentions('He directed "Beat Girl" in 12 May 1960 in Nice over 1,989 mi.')
    assert [(m.text, m.kind) for m in found] == [
        ("He", "anaphor"),
        ("Beat Girl", "quote"),
        ("12 May 1960", "date"),
        ("Nice", "name"),
        ("1,989 mi", "number"),
    ]
    s = "Raoul Walsh was born on March 11, 1887 in New York City."
    assert [m.text for m in mentions(s)] == ["Raoul Walsh", "March 11, 1887", "New York City"]


def test_name_runs_take_inner_connectors_and_stop_at_sentence_ends():
    s = "The band members are Jan de Bont and Mark Austin. That is, the University of Southampton."
    names = [m.text for m in mentions(s) if m.kind == "name"]
    assert names == ["Jan de Bont", "Mark Austin", "University of Southampton"]


def test_a_definite_noun_phrase_subject_is_an_anaphor_unless_it_names_its_subject():
    assert [m.kind for m in mentions("The album was released under Sire Records.")] == [
        "anaphor",
        "name",
    ]
    assert [m.text for m in mentions("The film Hypocrite was directed by Miguel Morayta.")] == [
        "Hypocrite",
        "Miguel Morayta",
    ]


def test_question_entities_skip_question_words_and_asides():
    q = "When did the director of film Hypocrite (Film) die in Mexico City?"
    assert [m.text for m in question_entities(q)] == ["Hypocrite", "Mexico City"]
    q2 = 'Which of the following had "We Have an Emergency": Hot Hot Heat or The Operation M.D.?'
    assert [m.text for m in question_entities(q2)] == [
        "We Have an Emergency",
        "Hot Hot Heat",
        "Operation M.D.",
    ]


def test_triples_split_at_the_main_verb():
    cases = {
        "Steve Stevens released an album titled Atomic Playboys.": (
            "Steve Stevens",
            "released",
            "an album titled Atomic Playboys",
        ),
        "The film Laughter In Hell was directed by Edward L. Cahn.": (
            "The film Laughter In Hell",
            "was directed by",
            "Edward L. Cahn",
        ),
        'The actor who played Alan Shepard in "The Right Stuff" is Scott Glenn.': (
            'The actor who played Alan Shepard in "The Right Stuff"',
            "is",
            "Scott Glenn",
        ),
        "Cambodia is officially known as the Kingdom of Cambodia.": (
            "Cambodia",
            "is officially known as",
            "the Kingdom of Cambodia",
        ),
    }
    for sentence, expected in cases.items():
        (t,) = triples(sentence, backend="pattern")
        assert (t.subject, t.predicate, t.object) == expected
    (t,) = triples("The film Laughter In Hell was directed by Edward L. Cahn.", backend="pattern")
    assert [m.text for m in t.subject_mentions] == ["Laughter In Hell"]
    assert [m.text for m in t.object_mentions] == ["Edward L. Cahn"]


def test_coordinated_objects_give_one_triple_each_but_names_stay_whole():
    ts = triples("Christopher Nolan is a director, producer, and screenwriter.", backend="pattern")
    assert [t.object for t in ts] == ["a director", "producer", "screenwriter"]
    (date,) = triples("Raoul Walsh was born on March 11, 1887.", backend="pattern")
    assert date.object == "March 11, 1887"
    (between,) = triples("A railway runs between Kotri and Karachi.", backend="pattern")
    assert between.object == "between Kotri and Karachi"


def test_a_sentence_without_a_verb_keeps_its_mentions():
    (t,) = triples("National Route 13 towards Cambodia.", backend="pattern")
    assert (t.predicate, t.object) == ("", "")
    assert [m.text for m in t.subject_mentions] == ["National Route 13", "Cambodia"]
    assert not has_verb("a trio of three")
    assert has_verb("it formed in 1988")


def test_unknown_backend_and_missing_spacy():
    with pytest.raises(ValueError, match="expected 'auto', 'pattern', 'spacy'"):
        triples("A is B.", backend="nltk")
    if spacy_available():
        pytest.skip("spaCy is installed here")
    with pytest.raises(MissingDependencyError, match=r"peirce\[spacy\]"):
        triples("A is B.", backend="spacy")
    # "auto" falls back to the patterns when the extra is absent
    assert triples("Max is cold.", backend="auto")[0].predicate == "is"


def test_alignment_by_aliases_but_never_by_substring():
    idx = EntityIndex(
        [
            "Kurt Cobain",
            "Cobain",
            "German",
            "Germany",
            "UN",
            "United Nations",
            "Fred de Cordova",
            "Frederick de Cordova",
            "Russia",
            "Grand Duke Alexei of Russia",
            "US",
            "United States",
            "Jakarta",
            "Central Jakarta",
            "SMA Negeri 68 Jakarta",
        ],
        aliases={"Big Apple": "New York City"},
    )
    assert idx.same("Cobain", "Kurt Cobain")
    assert idx.canonical("Cobain") == "kurt cobain"  # the fuller name represents the group
    assert idx.same("German", "Germany")
    assert idx.same("UN", "United Nations")
    assert idx.same("Fred de Cordova", "Frederick de Cordova")
    assert idx.same("US", "United States")
    assert idx.same("the Big Apple", "New York City")
    assert not idx.same("Russia", "Grand Duke Alexei of Russia")
    # a name part shared by two full names is ambiguous: no alignment
    assert not idx.same("Jakarta", "Central Jakarta")
    assert not idx.same("Germany", "Russia")


def test_llm_triples_and_entities_are_validated_json():
    ts = triples_from_llm(
        '{"triples": [{"subject": "Marie Curie", "predicate": "born in", "object": "Warsaw"}]}'
    )
    assert [(t.subject, t.predicate, t.object) for t in ts] == [
        ("Marie Curie", "born in", "Warsaw")
    ]
    assert [m.key for m in ts[0].mentions] == ["marie curie", "warsaw"]
    ents = entities_from_llm('{"entities": [{"text": "Barack Obama", "type": "Person"}, 7]}')
    assert [(m.text, m.kind) for m in ents] == [("Barack Obama", "person")]
    for bad in ("[1, 2]", '[{"subject": "a"}]', "nope", '{"triples": "x"}'):
        with pytest.raises(ParseError):
            triples_from_llm(bad)
    with pytest.raises(ParseError):
        entities_from_llm('{"entities": "Obama"}')
