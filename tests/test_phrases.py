"""Query texts are true and grammatical for every phrase a bank can give them: singular or plural, noun
or gerund phrase, from a table or the fallback."""
import re

import pytest

from generation.phrases import (A_BEFORE_VOWEL, AN_BEFORE_CONSONANT, ESC50_PHRASES, FSD50K_PHRASES, default_phrase,
                                phrase_for)
from generation.sources.synthetic import CLASSES
from generation.tasks import TASKS
from generation.tasks.base import capitalise
from generation.tasks.negation import NEGATION

FALLBACK = {
    "jackhammer": "a jackhammer", "circular_saw": "a circular saw", "wind": "wind", "owl": "an owl",
    "sheep_bleating": "sheep bleating", "Car_passing_by": "a car passing by", "footsteps": "footsteps",
    "dogs_barking": "dogs barking", "engine_idling": "an engine idling", "crickets": "crickets",
    "fireworks": "fireworks", "birds": "birds", "barking_dog": "a barking dog", "crying": "crying",
    "running_water": "running water", "glass_breaking": "glass breaking", "hourglass": "an hourglass",
    "unicorn": "a unicorn", "bus": "a bus", "children_playing": "children playing",
    "rain_on_surface": "rain on surface",
    "air-conditioner": "an air conditioner", "Crying_and_sobbing": "crying or sobbing", "ceiling_fan": "a ceiling fan",
    "Male_speech_and_man_speaking": "male speech or man speaking", "the_ocean": "the ocean",
}
PHRASES = sorted({*ESC50_PHRASES.values(), *FSD50K_PHRASES.values(), *(p for _, p, _ in CLASSES.values()),
                  *map(default_phrase, FALLBACK)})
SAMPLE = ("a dog barking", "footsteps", "rain", "crying", "an engine idling", "sheep bleating")  # every shape
ASPECTS = list({id(a): a for task in TASKS.values() for combo in task.combos for a in combo}.values())
TEMPLATES = [t for a in ASPECTS for t in (*a.sentences, *a.clauses)]

VERBS = r"is|are|was|were|has|have|does|do|can|could|will|would|may|might|must|should|sounds?|comes?|goes|lasts?"
# a verb that must agree in number with a phrase: "{y} comes after", "{x} that goes on", "{y} can be heard"
AGREEING = re.compile(rf"\{{[xyz]\}},?\s+(?:that|which|who|{VERBS})\b")
PRONOUN = re.compile(r"\b(?:it|its|they|them|their)\b")             # "and {y} after it": its number varies
EXCLUSIVE = re.compile(r"\b(?:only|just)\s+\{")                      # "only {x}": false, a clip holds three sounds


@pytest.mark.parametrize("label, expected", FALLBACK.items())
def test_fallback_phrases_are_natural_noun_phrases(label, expected):
    assert default_phrase(label) == expected
    assert phrase_for(label) == ESC50_PHRASES.get(label, FSD50K_PHRASES.get(label, expected))


def test_templates_need_no_agreement_and_claim_no_exclusivity():
    for aspect in ASPECTS:
        assert len(aspect.sentences) >= 3, aspect.name
        for template in (*aspect.sentences, *aspect.clauses):
            assert not AGREEING.search(template), template
            assert not PRONOUN.search(template), template
            assert not EXCLUSIVE.search(template), template
    negation = (*NEGATION.sentences, *NEGATION.clauses)
    assert not any(re.search(r"\b(?:only|just)\b", t) for t in negation), "every positive clip holds three sounds"
    assert any(t.index("{z}") < t.index("{x}") for t in NEGATION.sentences), "one says the absent sound first"


def problems(text: str) -> list[str]:
    found = []
    lower = text.lower()
    if "the sound of" in lower:
        found.append("'the sound of'")
    if re.search(r"\b(\w+)\s+\1\b", lower):
        found.append("a repeated word")
    for article, word in re.findall(r"\b(a|an)\s+([a-z]\w*)", lower):
        vowel = word[0] in "aeiou"
        if article == "a" and vowel and not word.startswith(A_BEFORE_VOWEL):
            found.append(f"'a {word}'")
        if article == "an" and not vowel and not word.startswith(AN_BEFORE_CONSONANT):
            found.append(f"'an {word}'")
    if re.search(r"\s{2}|\s,|,\s*,|^\s|\s$|\{|\}", text):
        found.append("bad spacing or punctuation")
    if not text[:1].isupper():
        found.append("not capitalised")
    return found


def renderings(template: str, phrases):
    """The template with each phrase in each slot, the other slots holding fixed phrases."""
    others = {"x": "a dog barking", "y": "footsteps", "z": "rain falling"}
    for slot in "xyz":
        if "{" + slot + "}" in template:
            for phrase in phrases:
                yield capitalise(template.format(**{**others, slot: phrase}))


def test_every_template_reads_well_with_every_phrase():
    bad = {}
    for template in TEMPLATES:
        for text in renderings(template, PHRASES):
            if problems(text):
                bad.setdefault(template, f"{text!r}: {', '.join(problems(text))}")
    # a clause is appended to another aspect's sentence after ", "
    for sentence in (s for a in ASPECTS for s in a.sentences):
        for clause in (c for a in ASPECTS for c in a.clauses):
            for text in renderings(f"{sentence}, {clause}", SAMPLE):
                if problems(text):
                    bad.setdefault(f"{sentence}, {clause}", f"{text!r}: {', '.join(problems(text))}")
    assert not bad, "\n".join(f"{t}  ->  {why}" for t, why in bad.items())


def test_the_rule_set_catches_what_it_should():
    for text in ("The sound of jackhammer", "A a dog", "A engine", "An dog", "Rain,  then wind", "rain, , wind"):
        assert problems(text), text
    assert not problems("An hour of rain, then a one-note whistle and an owl")
