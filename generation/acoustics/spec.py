"""Acoustic conditions as data: a YAML list of audiomentations transforms, checked against the rules
that keep every annotation true before anything is rendered.

A spec is `{name, description, transforms: [{TransformName: {argument: value}}, ...]}`; `OneOf`,
`SomeOf` and `Compose` nest further `transforms` lists. `p` defaults to 1.0 here (audiomentations'
own default is 0.5). Only the transforms in `ALLOWED` pass: each keeps every onset, offset and
overlap where it was and adds nothing that could be heard as a sound of the benchmark's classes.
The rest of audiomentations is refused by name with the reason (`REFUSED`).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

PRESETS_DIR = Path(__file__).with_name("presets")
CLEAN = "clean"
MAX_RT60 = 0.4      # seconds: a reverberation tail shorter than the 0.5 s order and overlap margins
MIN_SNR_DB = 0.0    # noise never louder than the quietest annotated sound (presets keep 5 dB)
GAIN_DB = (-20.0, 6.0)
MAX_MIC_DISTANCE = 1.0   # metres: the direct path delays every onset by distance / 343 m/s (<= 3 ms)
NAME = re.compile(r"^[a-z][a-z0-9_]{0,31}$")     # becomes part of a config name (corpus_<name>)
COMPOSITIONS = ("Compose", "OneOf", "SomeOf")

ALLOWED = {
    # additive noise: drawn once per group, so every version of a minimal pair gets the same noise
    "AddGaussianSNR", "AddColorNoise",
    # linear filters and equalisers: the same response for the whole clip
    "BandPassFilter", "BandStopFilter", "HighPassFilter", "LowPassFilter", "HighShelfFilter", "LowShelfFilter",
    "PeakingFilter", "SevenBandParametricEQ", "AirAbsorption",
    # codec and channel damage that keeps timing
    "Mp3Compression", "BitCrush", "Aliasing",
    # a room: reverberation bounded by MAX_RT60
    "RoomSimulator",
    # level and polarity: the same for every clip of a group
    "Gain", "PolarityInversion",
}
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


class ConditionError(ValueError):
    """A spec that breaks a rule; the message names the file, the place in it and the reason."""


@dataclass(frozen=True)
class Condition:
    """A named acoustic condition: its spec (what the fingerprint and the record hold) is plain data."""
    name: str
    spec: dict

    @property
    def clean(self) -> bool:
        return not self.spec["transforms"]

    @property
    def description(self) -> str:
        return self.spec.get("description", "")


def presets() -> dict[str, Path]:
    return {path.stem: path for path in sorted(PRESETS_DIR.glob("*.yaml"))}


def load_condition(name_or_file: str) -> Condition:
    """A preset by name (clean, noisy, reverberant, telephone, wild) or a user's YAML file."""
    path = presets().get(name_or_file) or Path(name_or_file)
    if not path.is_file():
        raise ConditionError(f"unknown acoustic condition {name_or_file!r}: name a preset "
                             f"({', '.join(presets())}) or a YAML file")
    try:
        spec = yaml.safe_load(path.read_text())
    except yaml.YAMLError as error:
        raise ConditionError(f"{path}: not valid YAML ({str(error).splitlines()[0]})") from None
    if isinstance(spec, dict) and "name" not in spec:
        spec = {"name": path.stem.lower().replace("-", "_"), **spec}
    return condition_from_spec(spec, str(path))


def condition_from_spec(spec, where: str = "acoustics") -> Condition:
    """Check a spec (from a file, or from a corpus record) and return it as a Condition."""
    if not isinstance(spec, dict) or not isinstance(spec.get("transforms", []), list):
        raise ConditionError(f"{where}: a condition is a mapping with a `transforms` list")
    unknown = sorted(set(spec) - {"name", "description", "transforms"})
    if unknown:
        raise ConditionError(f"{where}: unknown key(s) {unknown} (a condition has name, description, transforms)")
    name = spec.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        raise ConditionError(f"{where}: name {name!r} must be lowercase letters, digits and _ (it names a config)")
    transforms = [_check_item(item, f"{where}: transforms[{i}]") for i, item in enumerate(spec.get("transforms") or [])]
    if name == CLEAN and transforms:
        raise ConditionError(f"{where}: the name 'clean' is kept for the unchanged audio; rename this condition")
    condition = Condition(name, {"name": name, "description": str(spec.get("description", "")), "transforms": transforms})
    if transforms:
        from .chain import GroupChain

        try:   # a dry run on a second of audio: arguments audiomentations refuses fail here, not mid-render
            GroupChain(condition, 0, 16000, 16000, [])
        except (TypeError, ValueError, AssertionError, ImportError, KeyError) as error:
            raise ConditionError(f"{where}: audiomentations refuses it: {type(error).__name__}: {error}") from None
    return condition


def as_condition(augment, where: str = "augment") -> Condition:
    """A condition from a preset name, a YAML file, a Condition, or an audiomentations transform object
    (Compose, OneOf, SomeOf or one transform): objects pass the same rules as YAML specs."""
    if type(augment).__module__.split(".")[0] not in ("audiomentations", "generation") and not isinstance(augment, str | Path):
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
        return {kind: arguments}
    arguments = node.to_dict_private() if hasattr(node, "to_dict_private") else {}
    arguments.pop("__class_fullname__", None)
    return {kind: arguments}


def _check_item(item, where: str) -> dict:
    """One transform or composition, checked, with `p` made explicit."""
    if not isinstance(item, dict) or len(item) != 1:
        raise ConditionError(f"{where}: each entry is one `TransformName: {{argument: value}}` mapping, got {item!r}")
    (name, arguments), = item.items()
    if not isinstance(arguments, dict | None):
        raise ConditionError(f"{where}: the arguments of {name} must be a mapping, got {arguments!r}")
    arguments = dict(arguments or {})
    _check_numbers(arguments, f"{where}: {name}")
    if name in REFUSED:
        raise ConditionError(f"{where}: {name} is refused: {REFUSED[name]}")
    if name in COMPOSITIONS:
        children = arguments.get("transforms")
        if not isinstance(children, list) or not children:
            raise ConditionError(f"{where}: {name} needs a non-empty `transforms` list")
        arguments["transforms"] = [_check_item(child, f"{where}.{name}.transforms[{i}]")
                                   for i, child in enumerate(children)]
    elif name not in ALLOWED:
        raise ConditionError(f"{where}: {name} is not on the allow-list of transforms that keep every annotation "
                             f"true ({', '.join(sorted(ALLOWED))})")
    arguments.setdefault("p", 1.0)
    _RULES.get(name, lambda a, w: None)(arguments, where)
    return {name: arguments}


def _room_rule(arguments: dict, where: str) -> None:
    if arguments.get("calculation_mode") != "rt60":
        raise ConditionError(f"{where}: RoomSimulator needs calculation_mode: rt60, so that its RT60 is bounded")
    if arguments.setdefault("use_ray_tracing", False) is not False:
        raise ConditionError(f"{where}: RoomSimulator's ray tracing draws its rays from pyroomacoustics' own random "
                             "generator, so the clips of one group could get different rooms; use image sources "
                             "(use_ray_tracing: false)")
    if float(arguments.get("max_mic_distance", 0.35)) > MAX_MIC_DISTANCE:
        raise ConditionError(f"{where}: RoomSimulator's max_mic_distance must be at most {MAX_MIC_DISTANCE} m: the "
                             "direct path delays every onset by the distance over the speed of sound")
    if float(arguments.get("max_target_rt60", 0.8)) > MAX_RT60:
        raise ConditionError(f"{where}: RoomSimulator's max_target_rt60 must be at most {MAX_RT60} s: a longer tail "
                             "would carry a sound past the 0.5 s order and overlap margins")
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


def _noise_rule(arguments: dict, where: str) -> None:
    if float(arguments.get("min_snr_db", MIN_SNR_DB)) < MIN_SNR_DB:
        raise ConditionError(f"{where}: min_snr_db must be at least {MIN_SNR_DB:g} dB: noise louder than the quietest "
                             "annotated sound would hide it")


def _gain_rule(arguments: dict, where: str) -> None:
    low, high = float(arguments.get("min_gain_db", -12.0)), float(arguments.get("max_gain_db", 12.0))
    if low < GAIN_DB[0] or high > GAIN_DB[1]:
        raise ConditionError(f"{where}: Gain must stay within {GAIN_DB[0]:g} to {GAIN_DB[1]:g} dB (quieter is "
                             "inaudible, louder clips)")


def _check_numbers(arguments: dict, where: str) -> None:
    for key, value in arguments.items():
        if isinstance(value, float) and not math.isfinite(value):
            raise ConditionError(f"{where}: {key} must be a finite number, got {value}")


_RULES = {"RoomSimulator": _room_rule, "Mp3Compression": _mp3_rule, "Compose": _compose_rule,
          "AddGaussianSNR": _noise_rule, "AddColorNoise": _noise_rule, "Gain": _gain_rule}
