"""Acoustic conditions as data: a YAML list of audiomentations transforms, checked against the rules
that keep every annotation true before anything is rendered.

A spec is `{name, description, version, transforms: [{TransformName: {argument: value}}, ...]}`
(`version`: which computation of the transforms makes the audio, 1 where left out; a preset whose audio
changes takes a new one, so the fingerprint and the card tell the builds apart); `OneOf`,
`SomeOf` and `Compose` nest further `transforms` lists. `p` defaults to 1.0 here (audiomentations'
own default is 0.5). Only the transforms in `ARGUMENTS` pass, each with the arguments listed there and
every number within its bounds (audiomentations' defaults included): each keeps every onset, offset
and overlap where it was and adds nothing that could be heard as a sound of the benchmark's classes.
The rest of audiomentations is refused by name with the reason (`REFUSED`). A file is bounded before
it is parsed (size, nesting, aliases), so no YAML can hang or exhaust the check; what a drawn chain
does to the annotated sounds themselves is checked per group (`chain`).
"""
from __future__ import annotations

import inspect
import math
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from .chain import NOISE_LEVEL, GroupChain, transform_class
from .condition import COMPOSITIONS, LATEST_VERSION, MAX_RT60, Condition, ConditionError

PRESETS_DIR = Path(__file__).with_name("presets")
CLEAN = "clean"
MIN_SNR_DB = 0.0    # noise never louder than the quietest annotated sound (presets keep 5 dB)
GAIN_DB = (-20.0, 6.0)
MAX_MIC_DISTANCE = 1.0   # metres: the direct path delays every onset by distance / 343 m/s (<= 3 ms)
NAME = re.compile(r"^[a-z][a-z0-9_]{0,31}$")     # becomes part of a config name (corpus_<name>)
MAX_FILE_BYTES = 64 * 1024   # a condition file: the presets take under 1 KiB
MAX_YAML_DEPTH = 24          # nested collections in a file (a composition takes 4: list, entry, arguments, list)
MAX_ALIASES = 16             # alias uses in a file: more could multiply what the check walks (an alias bomb)
MAX_TRANSFORMS = 32          # entries in a condition, compositions included
MAX_NESTING = 4              # compositions inside compositions
MAX_DESCRIPTION = 1000       # characters


@dataclass(frozen=True)
class Bound:
    """The range (inclusive) a numeric argument must stay in, and why where the reason is not plain."""
    low: float
    high: float
    integer: bool = False
    why: str = ""

    def __call__(self, value) -> str | None:
        """What is wrong with `value`, or None."""
        if isinstance(value, bool) or not isinstance(value, int if self.integer else (int, float)):
            return f"is {_shown(value)}: it must be {'an integer' if self.integer else 'a number'}"
        if not self.low <= value <= self.high:        # also NaN, infinities and integers of any size
            return f"is {_shown(value)}: it must be within {self.low:g} to {self.high:g}{self.why}"
        return None


def _flag(value) -> str | None:
    return None if isinstance(value, bool) else f"is {_shown(value)}: it must be true or false"


def _word(value) -> str | None:
    return None if isinstance(value, str) and len(value) <= 40 else f"is {_shown(value)}: it must be a word"


def _weights(value) -> str | None:
    if not isinstance(value, list) or len(value) > MAX_TRANSFORMS:
        return f"is {_shown(value)}: it must be a list of at most {MAX_TRANSFORMS} numbers"
    return next(filter(None, map(Bound(0, 1e6), value)), None)


def _numbers(value) -> str | None:
    """A small mapping of numbers (RoomSimulator's ray_tracing_options, unused with ray tracing off)."""
    if not isinstance(value, dict) or len(value) > 8 or not all(isinstance(key, str) for key in value):
        return f"is {_shown(value)}: it must be a mapping of at most 8 named numbers"
    return next(filter(None, map(Bound(0, 1e9), value.values())), None)


def _count(value) -> str | None:
    """SomeOf's num_transforms: a count, or [min, max] (max null: up to all)."""
    count = Bound(0, MAX_TRANSFORMS, integer=True)
    if isinstance(value, list) and len(value) == 2:
        return count(value[0]) or (None if value[1] is None else count(value[1]))
    return count(value)


def _span(stem: str, bound: Bound) -> dict:
    """The min_ and max_ arguments of one drawn quantity."""
    return {f"min_{stem}": bound, f"max_{stem}": bound}


HERTZ = Bound(20.0, 20000.0)
ROLLOFF = _span("rolloff", Bound(6, 120, integer=True))
EQ_GAIN = Bound(-24.0, 24.0, why=" dB")
METRES = Bound(0.0, 20.0, why=" m")
ROOM_SIZE = Bound(1.0, 20.0, why=" m")
SNR = _span("snr_db", Bound(MIN_SNR_DB, 100.0, why=" dB: noise louder than the quietest annotated sound would hide it"))

# The allow-list: every argument a transform takes, with its bounds (numbers) or its kind (flags, words).
ARGUMENTS = {
    # additive noise: drawn once per group, so every version of a minimal pair gets the same noise
    "AddGaussianSNR": SNR,
    "AddColorNoise": {**SNR, **_span("f_decay", Bound(-12.0, 12.0, why=" dB per octave")),
                      "p_apply_a_weighting": Bound(0.0, 1.0), "n_fft": Bound(16, 8192, integer=True)},
    # linear filters and equalisers: the same response for the whole clip
    "BandPassFilter": {**_span("center_freq", HERTZ), **_span("bandwidth_fraction", Bound(0.01, 1.99)), **ROLLOFF,
                       "zero_phase": _flag},
    "BandStopFilter": {**_span("center_freq", HERTZ), **_span("bandwidth_fraction", Bound(0.01, 1.99)), **ROLLOFF,
                       "zero_phase": _flag},
    "HighPassFilter": {**_span("cutoff_freq", HERTZ), **ROLLOFF, "zero_phase": _flag},
    "LowPassFilter": {**_span("cutoff_freq", HERTZ), **ROLLOFF, "zero_phase": _flag},
    "HighShelfFilter": {**_span("center_freq", HERTZ), **_span("gain_db", EQ_GAIN), **_span("q", Bound(0.01, 1.0))},
    "LowShelfFilter": {**_span("center_freq", HERTZ), **_span("gain_db", EQ_GAIN), **_span("q", Bound(0.01, 1.0))},
    "PeakingFilter": {**_span("center_freq", HERTZ), **_span("gain_db", EQ_GAIN), **_span("q", Bound(0.01, 20.0))},
    "SevenBandParametricEQ": _span("gain_db", EQ_GAIN),
    "AirAbsorption": {**_span("temperature", Bound(10.0, 20.0, why=" degrees C")),
                      **_span("humidity", Bound(30.0, 90.0, why=" %")), **_span("distance", Bound(0.0, 1000.0, why=" m"))},
    # codec and channel damage that keeps timing
    "Mp3Compression": {**_span("bitrate", Bound(8, 320, integer=True, why=" kbit/s")),
                       "quality": Bound(0, 9, integer=True), "backend": _word, "preserve_delay": _flag},
    "BitCrush": _span("bit_depth", Bound(1, 32, integer=True)),
    "Aliasing": _span("sample_rate", Bound(1000, 192000, integer=True,
                                           why=" Hz: below 1 kHz nothing above 500 Hz would be left")),
    # a room: reverberation bounded by MAX_RT60, work bounded by max_order (image sources grow with its cube)
    "RoomSimulator": {**{key: bound for axis in "xyz" for key, bound in _span(f"size_{axis}", ROOM_SIZE).items()},
                      **{key: bound for axis in "xyz" for key, bound in _span(f"source_{axis}", METRES).items()},
                      **_span("absorption_value", Bound(0.01, 1.0)),
                      **_span("target_rt60", Bound(0.05, MAX_RT60, why=" s: a longer tail would carry a sound past "
                                                                        "the 0.5 s order and overlap margins")),
                      **_span("mic_distance", Bound(0.01, MAX_MIC_DISTANCE, why=" m: the direct path delays every "
                                                                                  "onset by the distance over the "
                                                                                  "speed of sound")),
                      **_span("mic_azimuth", Bound(-math.tau, math.tau)), **_span("mic_elevation", Bound(-math.tau, math.tau)),
                      "max_order": Bound(0, 12, integer=True, why=": image sources grow with the cube of the order "
                                                                  "(order 15 takes 20 s a group)"),
                      "padding": Bound(0.0, 5.0, why=" m"), "calculation_mode": _word, "use_ray_tracing": _flag,
                      "leave_length_unchanged": _flag, "ray_tracing_options": _numbers},
    # level and polarity: the same for every clip of a group
    "Gain": _span("gain_db", Bound(*GAIN_DB, why=" dB (quieter is inaudible, louder clips)")),
    "PolarityInversion": {},
    # compositions (their `transforms` are checked entry by entry)
    "Compose": {"shuffle": _flag},
    "OneOf": {"weights": _weights},
    "SomeOf": {"num_transforms": _count},
    "AtSampleRate": {"sample_rate": Bound(8000, 192000, integer=True, why=" Hz (a telephone's 8 kHz at the least)")},
}
PROBABILITY = Bound(0.0, 1.0)
VERSION = Bound(1, LATEST_VERSION, integer=True, why=" (1: audiomentations' noise; 2: the same noise in float32)")
REFUSED = {
    "TimeStretch": "it stretches time, so every onset, offset and duration would move",
    "Shift": "it moves the audio in time, so every onset would move",
    "TimeMask": "it silences a stretch of the clip, so an annotated second could not be heard",
    "PitchShift": "it changes what a sound is (pitch), and its edges smear onsets",
    "Reverse": "it reverses time, so every order relation would flip",
    "Trim": "it crops the clip, so onsets and durations would move",
    "Padding": "it replaces part of the clip with padding, so an annotated second could not be heard",
    "AdjustDuration": "it crops or pads the clip, so onsets and durations would move",
    "RepeatPart": "it repeats a stretch of audio, adding events the annotations lack",
    "Resample": "it changes the sampling rate of one clip (and with it every sample position)",
    "AddShortNoises": "it mixes in other recordings, which may hold the benchmark's own classes (a negation would turn false)",
    "AddBackgroundNoise": "it mixes in other recordings, which may hold the benchmark's own classes (a negation would turn false)",
    "ApplyImpulseResponse": f"its impulse responses come from files of unknown RT60 and it rescales each clip by its own "
                            f"peak; use RoomSimulator with calculation_mode: rt60 and max_target_rt60 <= {MAX_RT60}",
    "GainTransition": "it fades part of the clip, so a quiet stretch could hide an annotated second",
    "Normalize": "it scales each clip by its own peak, so the versions of a minimal pair would differ in level",
    "LoudnessNormalization": "it scales each clip by its own loudness, so the versions of a minimal pair would differ in level",
    "Limiter": "its gain follows each clip's own loudness over time, so the versions of a minimal pair would differ",
    "Lambda": "it runs arbitrary code, which cannot be checked",
    "AddGaussianNoise": "its amplitude is absolute, blind to how loud the sounds are; use AddGaussianSNR",
    "ClippingDistortion": "it clips each clip at its own percentile, so the versions of a minimal pair would differ "
                          "(and a mostly silent clip loses its sounds)",
    "TanhDistortion": "its gains follow each clip's own level, so the versions of a minimal pair would differ",
    "Clip": "a fixed clipping level can flatten a quiet clip's sounds to nothing",
}


def presets() -> dict[str, Path]:
    return {path.stem: path for path in sorted(PRESETS_DIR.glob("*.yaml"))}


class _BoundedLoader(yaml.SafeLoader):
    """A SafeLoader that refuses deep nesting and many aliases while it composes, before anything is built
    (PyYAML composes recursively, and an alias bomb is small on disk but huge once walked)."""

    def __init__(self, stream):
        super().__init__(stream)
        self.depth = self.aliases = 0

    def compose_node(self, parent, index):
        mark = self.peek_event().start_mark
        if self.check_event(yaml.AliasEvent):
            self.aliases += 1
            if self.aliases > MAX_ALIASES:
                raise yaml.YAMLError(f"more than {MAX_ALIASES} aliases (line {mark.line + 1})")
            return super().compose_node(parent, index)
        self.depth += 1
        if self.depth > MAX_YAML_DEPTH:
            raise yaml.YAMLError(f"nested more than {MAX_YAML_DEPTH} deep (line {mark.line + 1})")
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def load_condition(name_or_file: str) -> Condition:
    """A preset by name (clean, noisy, reverberant, telephone, wild) or a user's YAML file."""
    path = presets().get(name_or_file) or Path(name_or_file)
    if not path.is_file():
        raise ConditionError(f"unknown acoustic condition {name_or_file!r}: name a preset "
                             f"({', '.join(presets())}) or a YAML file")
    with path.open("rb") as file:
        data = file.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise ConditionError(f"{path}: larger than {MAX_FILE_BYTES // 1024} KiB; a condition is a short list of transforms")
    try:
        spec = yaml.load(data.decode("utf-8"), Loader=_BoundedLoader)
    except UnicodeDecodeError:
        raise ConditionError(f"{path}: not UTF-8 text") from None
    except (yaml.YAMLError, ValueError) as error:     # ValueError: an integer of more than 4300 digits
        raise ConditionError(f"{path}: not valid YAML ({str(error).splitlines()[0]})") from None
    if isinstance(spec, dict) and "name" not in spec:
        spec = {"name": path.stem.lower().replace("-", "_"), **spec}
    return condition_from_spec(spec, str(path))


def condition_from_spec(spec, where: str = "acoustics") -> Condition:
    """Check a spec (from a file, or from a corpus record) and return it as a Condition."""
    if not isinstance(spec, dict) or not isinstance(spec.get("transforms", []), list):
        raise ConditionError(f"{where}: a condition is a mapping with a `transforms` list")
    unknown = sorted(map(_shown, set(spec) - {"name", "description", "version", "transforms"}))
    if unknown:
        raise ConditionError(f"{where}: unknown key(s) {', '.join(unknown)} (a condition has name, description, "
                             "version, transforms)")
    name, description = spec.get("name"), spec.get("description", "")
    if not isinstance(name, str) or not NAME.match(name):
        raise ConditionError(f"{where}: name {_shown(name)} must be lowercase letters, digits and _ (it names a config)")
    if not isinstance(description, str) or len(description) > MAX_DESCRIPTION:
        raise ConditionError(f"{where}: description must be text of at most {MAX_DESCRIPTION} characters")
    problem = VERSION(spec.get("version", 1))
    if problem:
        raise ConditionError(f"{where}: version {problem}")
    budget = [MAX_TRANSFORMS]
    transforms = [_check_item(item, f"{where}: transforms[{i}]", budget, 0)
                  for i, item in enumerate(spec.get("transforms") or [])]
    if name == CLEAN and transforms:
        raise ConditionError(f"{where}: the name 'clean' is kept for the unchanged audio; rename this condition")
    _total_noise_rule(transforms, where)
    version = {"version": spec["version"]} if "version" in spec else {}     # kept as given: the fingerprint holds it
    condition = Condition(name, {"name": name, "description": description, **version, "transforms": transforms})
    if transforms:
        try:   # a dry run on a second of audio: arguments audiomentations refuses fail here, not mid-render
            GroupChain(condition, 0, 16000, 16000, [])
        except (TypeError, ValueError, AssertionError, ArithmeticError, ImportError, KeyError) as error:
            raise ConditionError(f"{where}: audiomentations refuses it: {type(error).__name__}: "
                                 f"{error or 'an argument is out of its range'}") from None
    return condition


def as_condition(augment, where: str = "augment") -> Condition:
    """A condition from a preset name, a YAML file, a Condition, or an audiomentations transform object
    (Compose, OneOf, SomeOf or one transform): objects pass the same rules as YAML specs."""
    if type(augment).__module__.split(".")[0] not in ("audiomentations", "reasonaudio") and not isinstance(augment, str | Path):
        raise ConditionError(f"{where}: expected a preset name, a YAML file or an audiomentations transform, "
                             f"got {type(augment).__module__}.{type(augment).__name__}")
    if isinstance(augment, Condition):
        return augment
    if isinstance(augment, (str, Path)):
        return load_condition(str(augment))
    return condition_from_spec({"name": "augment", "transforms": [_item_of(augment)]}, where)


def _item_of(node) -> dict:
    """The spec entry of an audiomentations object."""
    kind = type(node).__name__
    if kind in COMPOSITIONS:
        arguments = {"p": node.p, "transforms": [_item_of(child) for child in node.transforms]}
        if kind == "SomeOf":
            count = node.num_transforms
            arguments["num_transforms"] = list(count) if isinstance(count, tuple) else count
        if kind == "AtSampleRate":
            arguments["sample_rate"] = node.sample_rate
        return {kind: arguments}
    arguments = node.to_dict_private() if hasattr(node, "to_dict_private") else {}
    arguments.pop("__class_fullname__", None)
    return {kind: arguments}


def _shown(value) -> str:
    """A value for a message, short whatever it is (a 60,000-digit integer has no repr)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10 ** 15:
        return "an integer of more than 15 digits"
    text = repr(value) if isinstance(value, (str, int, float, type(None))) else f"a {type(value).__name__}"
    return text if len(text) <= 40 else text[:37] + "..."


def _check_item(item, where: str, budget: list[int], nesting: int) -> dict:
    """One transform or composition, checked, with `p` made explicit; `budget` counts the entries left."""
    budget[0] -= 1
    if budget[0] < 0:
        raise ConditionError(f"{where}: more than {MAX_TRANSFORMS} transforms in one condition")
    if not isinstance(item, dict) or len(item) != 1:
        raise ConditionError(f"{where}: each entry is one `TransformName: {{argument: value}}` mapping, got {_shown(item)}")
    (name, arguments), = item.items()
    if not isinstance(name, str):
        raise ConditionError(f"{where}: a transform is named by text, got {_shown(name)}")
    if not isinstance(arguments, dict | None):
        raise ConditionError(f"{where}: the arguments of {name} must be a mapping, got {_shown(arguments)}")
    arguments = dict(arguments or {})
    if name in REFUSED:
        raise ConditionError(f"{where}: {name} is refused: {REFUSED[name]}")
    if name not in ARGUMENTS:
        raise ConditionError(f"{where}: {name} is not on the allow-list of transforms that keep every annotation "
                             f"true ({', '.join(sorted(set(ARGUMENTS) - set(COMPOSITIONS)))})")
    arguments.setdefault("p", 1.0)
    if name in COMPOSITIONS:
        children = arguments.get("transforms")
        if not isinstance(children, list) or not children:
            raise ConditionError(f"{where}: {name} needs a non-empty `transforms` list")
        if nesting >= MAX_NESTING:
            raise ConditionError(f"{where}: compositions nested more than {MAX_NESTING} deep")
        arguments["transforms"] = [_check_item(child, f"{where}.{name}.transforms[{i}]", budget, nesting + 1)
                                   for i, child in enumerate(children)]
    _check_arguments(name, arguments, where)
    _RULES.get(name, lambda a, w: None)(arguments, where)
    return {name: arguments}


def _check_arguments(name: str, arguments: dict, where: str) -> None:
    """Every argument is one the transform takes, of its kind and within its bounds; so is each default
    of audiomentations' that the spec leaves in place (Gain's +12 dB, a room's 0.8 s)."""
    accepted = {"p": PROBABILITY, **ARGUMENTS[name]}
    for key in arguments:
        if key not in accepted and not (key == "transforms" and name in COMPOSITIONS):
            raise ConditionError(f"{where}: {name} takes no argument {_shown(key)} (it takes "
                                 f"{', '.join(sorted(accepted))})")
    defaults = {key: value for key, value in _defaults(name).items() if key in accepted}
    values = {**defaults, **{key: value for key, value in arguments.items() if key in accepted}}
    for key, value in values.items():
        problem = accepted[key](value)
        if problem:
            given = "" if key in arguments else " (audiomentations' default)"
            raise ConditionError(f"{where}: {name}'s {key}{given} {problem}")
        low = values.get(key.replace("max_", "min_", 1)) if key.startswith("max_") else None
        if low is not None and not isinstance(value, bool) and low > value:
            raise ConditionError(f"{where}: {name}'s {key.replace('max_', 'min_', 1)} ({_shown(low)}) is above its "
                                 f"{key} ({_shown(value)})")


def _defaults(name: str) -> dict:
    """The arguments a transform's class gives a value when a spec leaves them out."""
    return {key: parameter.default for key, parameter in _signature(name).items()
            if parameter.default not in (inspect.Parameter.empty, None)}


def _signature(name: str) -> dict:
    return dict(inspect.signature(transform_class(name).__init__).parameters)


def _room_rule(arguments: dict, where: str) -> None:
    if arguments.get("calculation_mode") != "rt60":
        raise ConditionError(f"{where}: RoomSimulator needs calculation_mode: rt60, so that its RT60 is bounded")
    if arguments.setdefault("use_ray_tracing", False) is not False:
        raise ConditionError(f"{where}: RoomSimulator's ray tracing draws its rays from pyroomacoustics' own random "
                             "generator, so the clips of one group could get different rooms; use image sources "
                             "(use_ray_tracing: false)")
    if arguments.setdefault("leave_length_unchanged", True) is not True:
        raise ConditionError(f"{where}: RoomSimulator must keep leave_length_unchanged: true (the clip length is fixed)")


def _mp3_rule(arguments: dict, where: str) -> None:
    if arguments.setdefault("backend", "fast-mp3-augment") != "fast-mp3-augment":
        raise ConditionError(f"{where}: Mp3Compression needs backend: fast-mp3-augment (the others delay the audio)")
    if arguments.setdefault("preserve_delay", False):
        raise ConditionError(f"{where}: Mp3Compression's preserve_delay would delay every onset")


def _compose_rule(arguments: dict, where: str) -> None:
    if arguments["p"] != 1.0 or arguments.get("shuffle"):
        raise ConditionError(f"{where}: Compose draws its p and its shuffle anew for every clip; set p on its "
                             "transforms instead and keep their order")


def _at_sample_rate_rule(arguments: dict, where: str) -> None:
    """Filters and codecs of the channel's band only (noise is set against the sounds as the whole chain
    leaves them, a room is bounded at the clip's rate, the seven-band EQ's bands are fixed for full-band
    audio), every frequency they may draw below the rate's Nyquist frequency, audiomentations' defaults
    and a band's upper edge included."""
    nyquist = {**_defaults("AtSampleRate"), **arguments}["sample_rate"] / 2
    stack = list(arguments["transforms"])
    while stack:
        (name, inner), = stack.pop().items()
        if name in (*NOISE_LEVEL, "RoomSimulator", "SevenBandParametricEQ"):
            raise ConditionError(f"{where}: AtSampleRate runs filters and codecs of the channel's band; put {name} "
                                 "outside it")
        stack += inner.get("transforms", [])
        values = {**_defaults(name), **inner}
        drawn = {key: value for key, value in values.items() if key.endswith("_freq")}
        if "max_bandwidth_fraction" in values:
            drawn["band's upper edge"] = values["max_center_freq"] * (1 + values["max_bandwidth_fraction"] / 2)
        if "max_sample_rate" in values:
            drawn["max_sample_rate / 2"] = values["max_sample_rate"] / 2
        for key, value in drawn.items():
            if value >= nyquist:
                raise ConditionError(f"{where}: {name}'s {key} ({value:g} Hz) is not below {nyquist:g} Hz, half of "
                                     "AtSampleRate's sample_rate")


def _noise_power(item: dict) -> float:
    """The most noise one entry can add, as power relative to the quietest annotated sound's: a noise
    transform at its lowest SNR (audiomentations' default where the spec leaves it), a OneOf's loudest child,
    a SomeOf's loudest children up to the most it applies, every child of any other composition."""
    from .chain import NOISE_LEVEL

    (name, arguments), = item.items()
    if arguments.get("p", 1.0) == 0:
        return 0.0
    if name in NOISE_LEVEL:
        return 10 ** (-{**_defaults(name), **arguments}["min_snr_db"] / 10)
    children = sorted((_noise_power(child) for child in arguments.get("transforms", [])), reverse=True)
    if name == "OneOf":
        return children[0] if children else 0.0
    if name == "SomeOf":
        count = arguments.get("num_transforms", [1, None])
        most = count[1] if isinstance(count, list) else count
        return sum(children[:len(children) if most is None else most])
    return sum(children)


def _total_noise_rule(transforms: list[dict], where: str) -> None:
    """The noise a chain can add together stays MIN_SNR_DB below the quietest annotated sound: each
    transform's own bound alone would let 30 of them at 0 dB bury it 15 dB deep."""
    power = sum(map(_noise_power, transforms))
    if power > 10 ** (-MIN_SNR_DB / 10) * (1 + 1e-9):
        raise ConditionError(f"{where}: its noise transforms together can add noise {10 * math.log10(power):.1f} dB "
                             f"above the quietest annotated sound (each at its min_snr_db, all that can apply at "
                             f"once); together they must stay at least {MIN_SNR_DB:g} dB below it: raise min_snr_db "
                             "or use fewer")


_RULES = {"RoomSimulator": _room_rule, "Mp3Compression": _mp3_rule, "Compose": _compose_rule,
          "AtSampleRate": _at_sample_rate_rule}
