"""Acoustic conditions (noise, rooms, channels) applied after the mix, on audiomentations.

`spec` checks a condition's declarative YAML against the rules that keep every annotation true;
`chain` applies it to a candidate group with parameters drawn once per group, refusing a draw that
would erase or clip an annotated sound (`DrawRefused`)."""
from .chain import DrawRefused, GroupChain, group_seed, seeded
from .spec import (CLEAN, MAX_RT60, Condition, ConditionError, as_condition, condition_from_spec, load_condition,
                   presets)

__all__ = ["CLEAN", "MAX_RT60", "Condition", "ConditionError", "DrawRefused", "GroupChain", "as_condition",
           "condition_from_spec", "group_seed", "load_condition", "presets", "seeded"]
