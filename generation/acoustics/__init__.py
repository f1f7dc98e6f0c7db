"""Acoustic conditions (noise, rooms, channels) applied after the mix, on audiomentations.

`condition` says what a condition is and the bounds every part holds it to; `spec` checks a condition's
declarative YAML against the rules that keep every annotation true (a dry run of its chain included);
`chain` applies it to a candidate group with parameters drawn once per group, refusing a draw that
would erase or clip an annotated sound (`DrawRefused`)."""
from .chain import DrawRefused, GroupChain, group_seed, seeded
from .condition import MAX_RT60, Condition, ConditionError
from .spec import CLEAN, as_condition, condition_from_spec, load_condition, presets

__all__ = ["CLEAN", "MAX_RT60", "Condition", "ConditionError", "DrawRefused", "GroupChain", "as_condition",
           "condition_from_spec", "group_seed", "load_condition", "presets", "seeded"]
