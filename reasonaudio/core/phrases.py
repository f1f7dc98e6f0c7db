"""How a class is said in a query, and which classes are continuous by nature.

Phrases carry their article ("a dog barking", "rain") so templates can be plain format strings.
"""
from __future__ import annotations

import re

ESC50_PHRASES = {
    "dog": "a dog barking", "rooster": "a rooster crowing", "pig": "a pig grunting", "cow": "a cow mooing",
    "frog": "a frog croaking", "cat": "a cat meowing", "hen": "a hen clucking", "insects": "insects buzzing",
    "sheep": "a sheep bleating", "crow": "a crow cawing", "rain": "rain falling", "sea_waves": "waves crashing",
    "crackling_fire": "a fire crackling", "crickets": "crickets chirping", "chirping_birds": "birds chirping",
    "water_drops": "water dripping", "wind": "wind blowing", "pouring_water": "water being poured",
    "toilet_flush": "a toilet flushing", "thunderstorm": "thunder rumbling", "crying_baby": "a baby crying",
    "sneezing": "someone sneezing", "clapping": "hands clapping", "breathing": "someone breathing",
    "coughing": "someone coughing", "footsteps": "footsteps", "laughing": "someone laughing",
    "brushing_teeth": "teeth being brushed", "snoring": "someone snoring", "drinking_sipping": "someone sipping a drink",
    "door_wood_knock": "a knock on a wooden door", "mouse_click": "a mouse clicking", "keyboard_typing": "typing on a keyboard",
    "door_wood_creaks": "a wooden door creaking", "can_opening": "a can being opened", "washing_machine": "a washing machine running",
    "vacuum_cleaner": "a vacuum cleaner", "clock_alarm": "an alarm clock ringing", "clock_tick": "a clock ticking",
    "glass_breaking": "glass breaking", "helicopter": "a helicopter", "chainsaw": "a chainsaw", "siren": "a siren wailing",
    "car_horn": "a car horn", "engine": "an engine running", "train": "a train passing", "church_bells": "church bells ringing",
    "airplane": "an airplane flying over", "fireworks": "fireworks exploding", "hand_saw": "a hand saw cutting",
}

FSD50K_PHRASES = {
    "Bark": "a dog barking", "Meow": "a cat meowing", "Crowing_and_cock-a-doodle-doo": "a rooster crowing",
    "Car_passing_by": "a car passing by", "Siren": "a siren wailing", "Vehicle_horn_and_car_horn_and_honking": "a car horn",
    "Rain": "rain falling", "Wind": "wind blowing", "Thunder": "thunder rumbling", "Applause": "applause",
    "Knock": "a knock", "Doorbell": "a doorbell ringing", "Telephone": "a telephone ringing", "Typing": "typing",
    "Speech": "someone speaking", "Laughter": "someone laughing", "Cough": "someone coughing", "Sneeze": "someone sneezing",
    "Walk_and_footsteps": "footsteps", "Water_tap_and_faucet": "a running tap", "Toilet_flush": "a toilet flushing",
    "Glass": "glass clinking", "Shatter": "something shattering", "Gunshot_and_gunfire": "a gunshot",
    "Fireworks": "fireworks exploding", "Church_bell": "a church bell ringing", "Chirp_and_tweet": "a bird chirping",
    "Frog": "a frog croaking", "Engine": "an engine running", "Idling": "an engine idling", "Aircraft": "an aircraft",
    "Helicopter": "a helicopter", "Train": "a train passing", "Bicycle_bell": "a bicycle bell", "Buzz": "a buzzing sound",
    "Crackle": "crackling", "Drill": "a drill", "Sawing": "sawing", "Hammer": "hammering", "Clapping": "hands clapping",
    "Crying_and_sobbing": "someone crying", "Baby_cry_and_infant_cry": "a baby crying", "Whistling": "someone whistling",
    "Gurgling": "water gurgling", "Stream": "a stream flowing", "Ocean": "the ocean", "Fire": "a fire crackling",
}

# Classes that are continuous by nature (can be cropped or looped to any length); others are decided
# from the audio. Names from ESC-50 and FSD50K; the synthetic source states the kind itself.
CONTINUOUS_LABELS = {
    "rain", "sea_waves", "crackling_fire", "crickets", "chirping_birds", "wind", "pouring_water", "insects",
    "washing_machine", "vacuum_cleaner", "clock_tick", "helicopter", "chainsaw", "engine", "train", "airplane",
    "hand_saw", "brushing_teeth", "keyboard_typing", "thunderstorm", "water_drops", "siren",
    "Rain", "Wind", "Engine", "Idling", "Aircraft", "Helicopter", "Train", "Stream", "Ocean", "Fire", "Drill",
    "Buzz", "Crackle", "Water_tap_and_faucet", "Typing", "Applause", "Siren",
}


# Classes a listener may take for one another, whatever their phrases say (a dial tone's two pitches and a tone
# alternating between two; a sawtooth drone and a square-wave buzz, both buzzes; a crackle and a click train,
# both clicks): a query never names both of a pair, and no candidate of its group holds a look-alike of a
# sound it names, so no text is heard true of a negative through one.
# Labels of the built-in bank (and so of the stand-in), ESC-50 and FSD50K.
LOOKALIKES = (
    frozenset({"dial_tone", "two_tone_alternation"}), frozenset({"warble_tone", "two_tone_alternation"}),
    frozenset({"sawtooth_drone", "square_buzz"}),
    frozenset({"crackle", "click_train"}), frozenset({"mouse_click", "keyboard_typing"}),
    frozenset({"Fire", "Crackle"}), frozenset({"Engine", "Idling"}),
)


def lookalikes(labels) -> frozenset[str]:
    """The classes a listener may take for one of `labels` (not those labels themselves)."""
    labels = frozenset(labels)
    return frozenset().union(*(group for group in LOOKALIKES if group & labels)) - labels


# A few rules give a label no table knows a natural noun phrase: its article, or none for a plural, a
# mass noun or a gerund. The head noun decides: the one before the first -ing verb ("a car passing by",
# "sheep bleating"), else the last word before any preposition ("a circular saw", "rain on surface").
MASS_NOUNS = frozenset("""air applause chatter fire gas glass gravel gunfire hail ice laughter machinery metal
    music noise paper rain rainfall sand smoke snow speech static steam thunder traffic water wind wood""".split())
PLURAL_NOUNS = frozenset("people children men women feet teeth geese mice sheep deer fish".split())
ING_NOUNS = frozenset("thing sling sting swing spring string ceiling building wedding morning evening".split())
PREPOSITIONS = frozenset("on of in at with from by against into onto under over".split())
DETERMINERS = frozenset("a an the some someone somebody something".split())
A_BEFORE_VOWEL = ("one", "once", "uni", "use", "usu", "eu", "ewe")   # said with a consonant: "a unicorn"
AN_BEFORE_CONSONANT = ("hour", "honest", "honour", "heir")           # a silent h: "an hour"


def _gerund(word: str) -> bool:
    return word.endswith("ing") and len(word) > 4 and word not in ING_NOUNS


def _countable_singular(head: str) -> bool:
    plural = head in PLURAL_NOUNS or (head.endswith("s") and not head.endswith(("ss", "us", "is")))
    return not (plural or head in MASS_NOUNS or _gerund(head))


def article(word: str) -> str:
    """'a' or 'an' by how the word is said; a few spellings mislead ('a unicorn', 'an hour')."""
    vowel_sound = word.startswith(tuple("aeiou")) and not word.startswith(A_BEFORE_VOWEL)
    return "an" if vowel_sound or word.startswith(AN_BEFORE_CONSONANT) else "a"


def default_phrase(label: str) -> str:
    """A natural noun phrase for a label no table knows: 'circular_saw' -> 'a circular saw', 'footsteps' ->
    'footsteps', 'Crying_and_sobbing' -> 'crying or sobbing' (AudioSet names list alternatives with 'and')."""
    label = label.strip()
    separator = r"[_\s]+" if re.search(r"[_\s]", label) else r"-+"   # 'air-conditioner'; 'cock-a-doodle-doo' kept
    text = re.sub(separator, " ", label).lower().replace(" and ", " or ")
    words = text.split(" or ")[0].split()           # the first alternative decides the article
    if not words or words[0] in DETERMINERS:
        return text
    words = words[:next((i for i, w in enumerate(words) if i and w in PREPOSITIONS), len(words))]
    verb = next((i for i, w in enumerate(words) if i and _gerund(w)), None)
    head = words[verb - 1] if verb else words[-1]
    return f"{article(words[0])} {text}" if _countable_singular(head) else text


INDEFINITE = frozenset({"a", "an", "some"})
SOMEONE = {"someone": "the person", "somebody": "the person", "something": "the thing"}


def definite(phrase: str) -> str:
    """The phrase naming a sound already named: 'a helicopter' -> 'the helicopter', 'someone coughing' -> 'the
    person coughing', 'rain falling' -> 'the rain falling'. A query that names a sound twice with its indefinite
    article ("..., and applause after a helicopter") reads as two of them."""
    first, _, rest = phrase.partition(" ")
    if first.lower() == "the":
        return phrase
    if first.lower() in INDEFINITE and rest:
        return f"the {rest}"
    if first.lower() in SOMEONE:
        return f"{SOMEONE[first.lower()]} {rest}".rstrip()
    return f"the {phrase}"


NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def times_phrase(count: str) -> str:
    """How often, as a person says it: '1' -> 'once', '2' -> 'twice', '3' -> 'three separate times'."""
    n = int(count)
    if n in (1, 2):
        return ("once", "twice")[n - 1]
    return f"{NUMBER_WORDS[n] if n < len(NUMBER_WORDS) else n} separate times"


LABELS_SEPARATOR = "|"     # a natural recording's `label` and `phrase` in sources: each of its classes, in order


def sources_phrases(rows) -> dict[str, list[str]]:
    """label -> the phrases the `sources` rows (label, phrase) give it, in row order; a natural recording's row
    lists its classes and their phrases, separated by LABELS_SEPARATOR."""
    found: dict[str, list[str]] = {}
    for label, phrase in rows:
        for one, said in zip(label.split(LABELS_SEPARATOR), phrase.split(LABELS_SEPARATOR)):
            found.setdefault(one, []).append(said)
    return found


def last_phrases(rows) -> dict[str, str]:
    """label -> how captions say it: the last phrase the `sources` rows (label, phrase) give it."""
    return {label: said[-1] for label, said in sources_phrases(rows).items()}


def phrase_for(label: str, given: str | None = None) -> str:
    return given or ESC50_PHRASES.get(label) or FSD50K_PHRASES.get(label) or default_phrase(label)
