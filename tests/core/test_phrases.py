"""Query texts are true and grammatical for every phrase a bank can give them: singular or plural, noun
or gerund phrase, from a table or the fallback."""
import re

import numpy as np
import pytest

from reasonaudio.core.phrases import (A_BEFORE_VOWEL, AN_BEFORE_CONSONANT, ESC50_PHRASES, FSD50K_PHRASES, default_phrase,
                                      definite, phrase_for)
from reasonaudio.generation.sources.synthetic import CLASSES
from reasonaudio.generation.tasks import TASKS
from reasonaudio.generation.templates import STYLES, fields, render
from reasonaudio.generation.templates.paper import FIND

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
SHAPES = {shape.name: shape for task in TASKS.values() for shape in task.shapes}
TEMPLATES = [(style, name, t) for style, table in STYLES.items() for name in SHAPES for t in table[name]]

VERBS = r"is|are|was|were|has|have|does|do|can|could|will|would|may|might|must|should|sounds?|comes?|goes|lasts?"
# a verb that must agree in number with a phrase: "{b} comes after", "{a} that goes on", "{b} can be heard"
AGREEING = re.compile(rf"\{{(?:a|b|c|z|z2)\}},?\s+(?:that|which|who|itself|themselves|{VERBS})\b")
PRONOUN = re.compile(r"\b(?:it|its|itself|they|them|their)\b")     # "and {b} after it": its number varies
EXCLUSIVE = re.compile(r"\b(?:only|just)\s+\{")                   # "only {a}": false, a clip holds other sounds


@pytest.mark.parametrize("label, expected", FALLBACK.items())
def test_fallback_phrases_are_natural_noun_phrases(label, expected):
    assert default_phrase(label) == expected
    assert phrase_for(label) == ESC50_PHRASES.get(label, FSD50K_PHRASES.get(label, expected))


def test_templates_need_no_agreement_and_claim_no_exclusivity():
    for style, name, template in TEMPLATES:
        assert not AGREEING.search(template), template
        assert not PRONOUN.search(template), template
        assert not EXCLUSIVE.search(template), template


def test_every_shape_has_several_templates_naming_exactly_its_roles():
    for style, table in STYLES.items():
        assert set(table) == set(SHAPES), f"style {style}: templates for {set(table) ^ set(SHAPES)}"
        for name, shape in SHAPES.items():
            assert len(table[name]) >= 3, (style, name)
            roles = set(shape.relates + shape.absent_roles) | ({"n"} if "n" in shape.bind(
                shape.symbolic_atoms()) else set())
            for template in table[name]:
                assert fields(template) == roles, (style, name, template)


def test_order_templates_name_sounds_in_temporal_order_no_more_often_than_chance():
    """A rule that ranks the first-named sound first must gain nothing from the wording: the related
    sounds come in temporal order (a, b, c) in at most 1 / (order flips + 1) of a shape's templates."""
    for style, table in STYLES.items():
        for name, shape in SHAPES.items():
            order_atoms = sum(atom.relation == "before" for atom in shape.symbolic_atoms())
            if not order_atoms:
                continue
            related = list(shape.temporal) or [r for r in ("a", "b", "c") if r in shape.relates]
            in_order = sum(sorted(related, key=lambda r: t.index("{" + r + "}")) == related for t in table[name])
            assert in_order / len(table[name]) <= 1 / (order_atoms + 1) + 1e-9, (style, name, in_order)
    assert any(t.index("{z}") < t.index("{a}") for t in STYLES["natural"]["present-absent"]), "one names z first"


def test_order_templates_agree_with_time_on_half_the_pairs():
    """Where every related sound is ordered (a chain), the pairs its templates name in temporal order are
    half of all: a rule that scores the agreement of naming and onset order (first-mentioned-first) gains
    nothing (more templates in temporal order would let it beat bag-of-sounds)."""
    for style, table in STYLES.items():
        for name, shape in SHAPES.items():
            if sum(atom.relation == "before" for atom in shape.symbolic_atoms()) < len(shape.relates) - 1 or \
                    len(shape.relates) < 3:
                continue
            pairs = [(x, y) for i, x in enumerate(shape.relates) for y in shape.relates[i + 1:]]
            agree = [t.index("{" + x + "}") < t.index("{" + y + "}") for t in table[name] for x, y in pairs]
            assert np.mean(agree) == 0.5, (style, name)


DIRECTED = ("before", "longer", "more_often")   # relations whose two sounds play different parts: x earlier, longer


def unbalanced_directions(templates, atoms) -> list[str]:
    """The directed atoms (x before y, x longer than y) whose x the templates name (first mention) before y in
    other than exactly half of them."""
    found = []
    for atom in atoms:
        if atom.relation in DIRECTED:
            x, y = atom.args[:2]
            forward = sum(t.index("{" + x + "}") < t.index("{" + y + "}") for t in templates)
            if forward * 2 != len(templates):
                found.append(f"{atom.relation} {x} {y}: {x} named first in {forward} of {len(templates)}")
    return found


def test_directed_pairs_are_named_each_way_in_half_a_shapes_templates():
    """A rule that reads only the order in which the text names sounds must gain nothing, in either direction:
    for every atom that orders or compares two sounds (x before y, x longer than y), the templates naming x
    before y are exactly half of the shape's, so each such shape has an even number of templates. A bound
    one way is not enough: the rule may as well bet on the other direction. Where a pair is named one way
    more often, such rules beat their ties: on longer-absent "the first-named wanted sound is the shorter", on
    longer-chain "the last-named sound is the shortest", on before-overlap-absent "the second-named sound is
    heard first"."""
    bad = [f"{style} {name}: {problem}" for style, table in STYLES.items() for name, shape in SHAPES.items()
           for problem in unbalanced_directions(table[name], shape.symbolic_atoms())]
    assert not bad, "\n".join(bad)


def test_the_naming_direction_rule_catches_what_it_should():
    longer_absent = SHAPES["longer-absent"].symbolic_atoms()
    shorter_first = ("{a} lasting much longer than {b}, and no sign of {z} anywhere in the clip",   # as they were
                     "{b}, much shorter than {a}, and no trace of {z} anywhere in the clip",
                     "no trace of {z}, but {b}, with {a} lasting much longer")
    assert unbalanced_directions(shorter_first, longer_absent)                       # 1 of 3
    assert unbalanced_directions(shorter_first[:1] * 3 + shorter_first[1:2], longer_absent)  # 3 of 4: other way
    assert not unbalanced_directions(shorter_first + ("no sign of {z} anywhere, but {a} going on far longer "
                                                      "than {b}",), longer_absent)
    mix = SHAPES["before-overlap-absent"].symbolic_atoms()
    later_first = ("{b} after {a}, and {c} at the same time as {b}, and no sign of {z} anywhere in the clip",
                   "no trace of {z} anywhere, but {a} and later {b}, with {c} overlapping with {b}")
    assert not unbalanced_directions(later_first, mix)
    assert unbalanced_directions(later_first + later_first[:1], mix)           # odd: never half
    # the first mention counts: the third names b first (then a before b again), the fourth a first
    assert not unbalanced_directions(later_first + (
        "{b} together with {c}, {a} before {b}, and no sign of {z} anywhere in the clip",
        "no sign of {z} anywhere, but {a} some time before {b}, and {b} together with {c}"), mix)
    assert unbalanced_directions(later_first + later_first[1:] * 2, mix)      # 3 of 4 name a first
    chain = SHAPES["longer-chain"].symbolic_atoms()               # each atom on its own: a-b balanced, b-c not
    assert unbalanced_directions(("{a} lasting much longer than {b}, and {c} much shorter still",
                                  "{b}, much shorter than {a} but much longer than {c}"), chain) == \
        ["longer b c: b named first in 2 of 2"]


# What a template may say, by the relation it expresses: each template must say every relation its shape's
# atoms hold and no other; words that place a sound absolutely (an unmentioned sound may come before or
# after) or claim more than the margins ("during": containment; "briefly": an absolute length) never.
RELATION_WORDS = {
    "before": r"\bthen\b|\bafter\b|\bbefore\b|following|afterwards|later|earlier|in between",
    "overlap": r"same time|overlapping|\boverlaps?\b|together with|simultaneously",
    "apart": r"different times?|another time|separate times?",
    "longer": r"longer|shorter",
    "lasts": r"\{n\} seconds",
    "times": r"\{n:times\}",
    "more_often": r"more often|less often|more times|fewer times",
    "as_often": r"same number of times|as often as|as many times as|equally often",
    "differs_often": r"different number of times|unequal number of times",
    "absent": r"without|no sign of|no trace of|\bnot\b|neither|\bnor\b",
}
# "followed by" / "preceded by" read as "immediately": an unmentioned sound may come in between (it does in most
# positives); "separately" also reads as "can be told apart"; "for much longer" also as "ends later"
ADJACENCY = re.compile(r"\b(?:followed|preceded) by\b")
OTHER_READING = re.compile(r"\bseparately\b|\bfor much longer\b")
CLAIMS_MORE = re.compile(r"\b(?:first|finally|at the end|at the start|at last|last|beginning|during|briefly|"
                         r"immediately|right after|just after|only|exactly)\b")


def test_every_template_says_its_constraint_and_nothing_more():
    for style, name, template in TEMPLATES:
        said = {relation for relation, words in RELATION_WORDS.items() if re.search(words, template)}
        atoms = {atom.relation for atom in SHAPES[name].symbolic_atoms()} - {"present"}
        assert said == atoms, (style, name, template, said, atoms)
        assert not CLAIMS_MORE.search(template), (style, name, template)


def one_reading(template: str, atoms) -> bool:
    """Each comma-separated clause of the template names exactly the sounds of one atom, and every atom has one."""
    named = [fields(part) for part in template.split(",") if fields(part)]
    wanted = [set(atom.args) for atom in atoms]
    return all(roles in wanted for roles in named) and all(roles in named for roles in wanted)


def test_templates_joining_order_and_overlap_have_one_reading():
    """Where an order atom and an overlap (or apart) atom join, each clause states one atom and names exactly its
    sounds ("{b} after {a}, and {c} at the same time as {b}"): "{a}, then {b} together with {c}" also reads as c
    after a, which the constraint does not say (a natural positive had c during a)."""
    for style, name, template in TEMPLATES:
        atoms = SHAPES[name].symbolic_atoms()
        relations = {atom.relation for atom in atoms}
        if "before" in relations and relations & {"overlap", "apart"}:
            assert one_reading(template, atoms), (style, name, template)


def test_the_one_reading_rule_catches_what_it_should():
    atoms = SHAPES["before-overlap-absent"].symbolic_atoms()
    for wrong in ("{a}, then {b} together with {c}, without {z}", "{b} and {c} at the same time after {a}, without {z}"):
        assert not one_reading(wrong, atoms), wrong
    assert one_reading("{b} after {a}, and {c} at the same time as {b}, without {z}", atoms)


def test_the_rule_set_on_relations_catches_what_it_should():
    for wrong in ("first {a}, then {b}", "{b} during {a}", "{a}, and finally {b}", "{b} only briefly"):
        assert CLAIMS_MORE.search(wrong), wrong
    assert {r for r, w in RELATION_WORDS.items() if re.search(w, "{a} and {b} at the same time, without {z}")} == \
        {"overlap", "absent"}


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
    others = {"a": "a dog barking", "b": "footsteps", "c": "wind", "d": "a bell", "z": "rain falling", "z2": "a siren",
              "n": "5"}
    for slot in fields(template) - {"n"}:
        for phrase in phrases:
            yield render(template, {**others, slot: phrase})


def test_every_template_reads_well_with_every_phrase():
    bad = {}
    for style, name, template in TEMPLATES:
        for text in renderings(template, PHRASES):
            if problems(text):
                bad.setdefault(template, f"{text!r}: {', '.join(problems(text))}")
    assert not bad, "\n".join(f"{t}  ->  {why}" for t, why in bad.items())


def test_the_rule_set_catches_what_it_should():
    for text in ("The sound of jackhammer", "A a dog", "A engine", "An dog", "Rain,  then wind", "rain, , wind"):
        assert problems(text), text
    assert not problems("An hour of rain, then a one-note whistle and an owl")


# --- one reading for absences, chains, order and lengths -------------------------------------------------------

JOINED = {"before", "overlap", "apart", "longer", "lasts"}       # relations an absence can attach to
CLIP_LEVEL = re.compile(r"\banywhere\b|\bin the clip\b|\bdoes not contain\b")
ABSENT_ROLES = {"z", "z2"}


def absence_reads_clip_level(template: str) -> bool:
    """Every clause (between commas) that names an absent sound names nothing else and either opens the text
    ("no trace of {z}, but ...", "find an audio clip without {z}, with ...") or closes it with a clip-level
    marker ("..., and no trace of {z} anywhere in the clip", "..., but does not contain {z}"). A bare trailing
    negation attaches to the relation before it: "{b}, after {a}, but not {z}" also reads as "after {a} but not
    after {z}", "{c} overlapping with {b}, but not {z}" as "not overlapping with {z}"."""
    text = template[len(FIND):] if template.startswith(FIND) else template
    clauses = [part for part in text.split(",") if fields(part)]
    for i, clause in enumerate(clauses):
        named = fields(clause)
        if not named & ABSENT_ROLES:
            continue
        if named - ABSENT_ROLES:
            return False                         # "{b} without {z}": the negation sits inside a relation's clause
        if i == 0:
            continue
        if i != len(clauses) - 1 or not CLIP_LEVEL.search(clause):
            return False
    return True


def test_an_absence_joined_to_a_relation_is_a_clip_level_clause():
    for style, name, template in TEMPLATES:
        relations = {atom.relation for atom in SHAPES[name].symbolic_atoms()}
        if "absent" in relations and relations & JOINED:
            assert absence_reads_clip_level(template), (style, name, template)


def test_the_clip_level_absence_rule_catches_what_it_should():
    for wrong in (                              # templates the review found (or like them), as they were
            "{b}, after {a}, but not {z}",
            "{a}, then {b}, without {z}",
            "{b}, preceded by {a}, with no trace of {z}",
            "{a} followed by {b}, with {c} overlapping with {b}, but not {z}",
            "{a} after {b}, and {c} at a separate time from {b}, but not {z}",
            "{b} overlapping with {a}, and no sign of {z}",
            "{b}, and {a} lasting roughly {n} seconds, but not {z}",
            FIND + "with {b} after {a}, and {c} at the same time as {b}, but without {z}",
            FIND + "in which {a} and {b} overlap, without {z}",
            FIND + "that contains {a} and {b}, but does not contain {z}, with {a} lasting for about {n} seconds",
            "{a} and {b} at the same time without {z}",
            "{a}, without {z}, and {b} after {a}"):
        assert not absence_reads_clip_level(wrong), wrong
    for right in ("no trace of {z}, but {b}, after {a}", "{b}, after {a}, and no sign of {z} anywhere in the clip",
                  FIND + "without {z}, with {b} after {a}",
                  FIND + "that contains {b} after {a}, but does not contain {z}",
                  FIND + "in which {a} and {b} overlap, and which does not contain {z}"):
        assert absence_reads_clip_level(right), right


def test_no_template_claims_adjacency_or_a_second_reading():
    """"followed by" / "preceded by" read as "immediately" (an unmentioned sound may come in between: it does in
    most positives); "separately" also reads as "can be told apart"; "for much longer" as "ends later"."""
    for style, name, template in TEMPLATES:
        assert not ADJACENCY.search(template), (style, name, template)
        assert not OTHER_READING.search(template), (style, name, template)


def test_the_adjacency_rule_catches_what_it_should():
    for wrong in ("{a} followed by {b}", "{b}, preceded by {a}"):
        assert ADJACENCY.search(wrong), wrong
    for wrong in ("{b} and {a}, heard separately", "{b}, and {a} for much longer"):
        assert OTHER_READING.search(wrong), wrong
    for right in ("{a}, and later {b}", "{b}, with {a} earlier", "{b}, some time after {a}", "{b} and {a}, heard at "
                  "different times", "{b}, with {a} lasting much longer"):
        assert not ADJACENCY.search(right) and not OTHER_READING.search(right), right


# "{c}, after {a} and then {b}": "and then {b}" may continue the prepositional phrase (a, b, c) or the main clause
# (a, c, b: exactly one hard negative); a sequence word after "after/before {x}" is never one reading
TWO_READINGS_CHAIN = re.compile(r"\b(?:after|before|following)\s+\{\w+\},?\s+and\s+(?:then|later|afterwards)\b")


def test_chains_have_one_reading():
    for style, name, template in TEMPLATES:
        assert not TWO_READINGS_CHAIN.search(template), (style, name, template)


def test_the_chain_rule_catches_what_it_should():
    for wrong in ("{c}, coming after {a} and then {b}", FIND + "with {c}, after {a} and then {b}",
                  "{c} after {a}, and later {b}"):
        assert TWO_READINGS_CHAIN.search(wrong), wrong
    for right in ("{a}, then {b}, and later {c}", FIND + "with {a}, then {b}, and then {c}",
                  "{c}, with {a} earlier and {b} in between", "{b}, after {a} and before {c}"):
        assert not TWO_READINGS_CHAIN.search(right), right


# --- a sound named twice reads as one sound ---------------------------------------------------------------------

NAMED = {"a": "a helicopter", "b": "an engine running", "c": "someone coughing", "d": "a bell", "z": "a siren",
         "z2": "a dog barking", "n": "5"}


def repeats_indefinitely(text: str, words: dict[str, str]) -> list[str]:
    """The phrases `text` names more than once as they are first said ("a helicopter ... after a helicopter"): a
    reader takes the second for another sound of the kind."""
    return [phrase for role, phrase in words.items() if role != "n"
            and len(re.findall(rf"\b{re.escape(phrase)}\b", text, flags=re.IGNORECASE)) > 1]


def test_a_sound_named_again_is_definite_in_every_template():
    repeated = 0
    for style, name, template in TEMPLATES:
        words = {role: NAMED[role] for role in fields(template)}
        text = render(template, words)
        assert not repeats_indefinitely(text, words), (style, name, text)
        for role in fields(template) - {"n"}:
            said = len(re.findall(rf"\{{{role}\}}", template))
            repeated += said > 1
            assert len(re.findall(rf"\b{re.escape(definite(NAMED[role]))}\b", text)) == said - 1, (template, role)
    assert repeated > 20       # the templates do name sounds twice, so the check is not empty


def test_the_repeat_rule_catches_what_it_should():
    words = {"a": "a helicopter", "b": "a bus engine", "c": "applause"}
    template = STYLES["natural"]["overlap-before"][0]
    assert repeats_indefinitely(template.format(**words), words) == ["a helicopter"]
    assert render(template, words) == "A bus engine at the same time as a helicopter, and applause after the helicopter"


@pytest.mark.parametrize("phrase, again", [
    ("a helicopter", "the helicopter"), ("an engine running", "the engine running"), ("the ocean", "the ocean"),
    ("footsteps", "the footsteps"), ("someone sipping a drink", "the person sipping a drink"),
    ("something shattering", "the thing shattering"), ("rain falling", "the rain falling")])
def test_a_phrase_named_again_takes_the_definite_article(phrase, again):
    assert definite(phrase) == again
