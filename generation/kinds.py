"""The two kinds of build behind one interface, chosen once from the source (`build_kind`): a planned build mixes
its clips from a bank of atomic sounds, a natural build publishes strongly labelled recordings as recorded. The
pipeline and `validate` ask the kind what differs, never the source."""
from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import partial

import numpy as np

from .acoustics.chain import inaudible_sounds
from .bank import SoundBank, build_bank
from .natural import is_natural, natural_summary, plan_natural_queries, recording_bank
from .render import heard_together
from .sources import SPLITS
from .tasks import TASKS, Planning, QueryPlan, Quotas, check_feasible, longest_discrete, plan_group, usable_shapes

log = logging.getLogger(__name__)
# Recordings a split from which a natural build's groups balance busyness: on stand-ins of 300, 1,000 and 3,000
# recordings, the busyness rules sit within their intervals of recognising the named sounds from 1,000 on
# (docs/results.md, "How many recordings a natural build needs").
BALANCED_RECORDINGS = 1000


@dataclass(frozen=True)
class BuildKind:
    """What differs between the kinds of build.

    Attributes:
        name: "planned" or "natural".
        recordings_published: each recording's audio is published as recorded (in `sources`): its content is part
            of the fingerprint, and a copy of it under another path is the same recording.
        one_occurrence_per_class: a clip holds each class at most once (a planned scene), but in a task that
            counts (`Task.repeats`); a recording holds a class as often as it is heard.
        own_annotations: the annotations are the build's own, so `validate` hears that the sounds it states
            together are heard together; a natural build's are the source's, taken as given.
    """

    name: str
    recordings_published: bool
    one_occurrence_per_class: bool
    own_annotations: bool

    def plan(self, config, forbidden: frozenset[str]) -> tuple[SoundBank, list[QueryPlan]]:
        """The split's bank of sounds and its queries.

        Args:
            config: the split's `GenerateConfig`.
            forbidden: query texts the split avoids (the other splits').

        Returns:
            The bank and the planned queries.
        """
        raise NotImplementedError

    def summary(self, plan) -> dict | None:
        """What the split's record adds about its queries for this kind (None: nothing).

        Args:
            plan: the split's `Plan` (its bank, queries and clips).

        Returns:
            The record's entries, or None.
        """
        return None


def _without_zero_weights(task: str, shapes: tuple, weights: dict[str, float]) -> tuple:
    """The shapes a task may draw once those weighted 0 are left out; refused when none is left."""
    kept = tuple(shape for shape in shapes if weights.get(shape.reported_as, 1.0) > 0)
    if not kept:
        raise ValueError(f"task {task!r}: every shape it can plan has shape weight 0 ("
                         f"{', '.join(sorted({shape.reported_as for shape in shapes}))}); leave the task out instead")
    return kept


class PlannedBuild(BuildKind):
    def plan(self, config, forbidden: frozenset[str]) -> tuple[SoundBank, list[QueryPlan]]:
        bank = build_bank(config.source, config.split, config.atomic_sounds, config.sample_rate, config.seed,
                          config.skip_bad_sources, longest_discrete(config.clip_seconds), progress=config.progress)
        bank = audible_bank(bank, config)
        by_label = bank.by_label()
        shapes = {}
        for name in config.tasks:
            check_feasible(TASKS[name], by_label, config.clip_seconds, config.events_per_clip, config.depth)
            shapes[name] = _without_zero_weights(name, usable_shapes(TASKS[name], by_label, config.clip_seconds,
                                                                    config.events_per_clip, config.depth),
                                                dict(config.shape_weights))
        split_index = SPLITS.index(config.split)
        queries, eligible, quotas = [], {}, Quotas()
        for task_index, name in enumerate(config.tasks):
            planning = Planning(by_label, config.candidates, config.clip_seconds, forbidden, config.events_per_clip,
                                config.depth, config.text_style, shapes[name], dict(config.shape_weights),
                                partial(heard_together, bank), eligible, quotas)
            for i in range(config.queries_per_task):
                rng = np.random.default_rng([config.seed, split_index, task_index, i])
                queries.append(plan_group(TASKS[name], f"{config.split}-{name}-{i:04d}", planning, rng))
        return bank, queries


class NaturalBuild(BuildKind):
    def plan(self, config, forbidden: frozenset[str]) -> tuple[SoundBank, list[QueryPlan]]:
        bank, clips = recording_bank(config.source, config.split, config.sample_rate, config.clip_seconds,
                                     config.skip_bad_sources, config.progress)
        if len(clips) < BALANCED_RECORDINGS:
            log.warning("split %s has %d annotated recordings, fewer than the %d from which a natural build's groups "
                        "balance: how busy a recording is may find positives (the card says so); certify the build "
                        "with `reasonaudio baselines --certify`, or add recordings", config.split, len(clips),
                        BALANCED_RECORDINGS)
        queries = plan_natural_queries(config, clips, forbidden)
        if not queries:
            raise ValueError(f"no query could be planned from the {len(clips)} annotated recordings of split "
                             f"{config.split!r}: their timelines state none of the tasks' shapes (e.g. every class "
                             "sounds through every recording); see the log for each task")
        return bank, queries

    def summary(self, plan) -> dict | None:
        found = natural_summary(plan.queries, [(c.clip_id, c.events) for _, c in plan.clips])
        return {"natural": {**found, "recordings": len(plan.bank.sounds), "balanced_from": BALANCED_RECORDINGS}}


PLANNED = PlannedBuild("planned", recordings_published=False, one_occurrence_per_class=True, own_annotations=True)
NATURAL = NaturalBuild("natural", recordings_published=True, one_occurrence_per_class=False, own_annotations=False)


def build_kind(source: str) -> BuildKind:
    """The kind of build a source makes.

    Args:
        source: the `--source` spec.

    Returns:
        NATURAL for strongly labelled recordings (`strong:`), else PLANNED.
    """
    return NATURAL if is_natural(source) else PLANNED


def audible_bank(bank: SoundBank, config) -> SoundBank:
    """The bank without the sounds that an acoustic condition of the build would leave inaudible (a
    telephone band takes 30 dB off brown noise): they are skipped and listed, as unusable recordings are."""
    inaudible = inaudible_sounds(config.conditions, bank.sounds, config.seed, config.split, bank.sample_rate)
    if not inaudible:
        return bank
    return SoundBank(tuple(s for s in bank.sounds if s.source_id not in inaudible), bank.sample_rate,
                     bank.skipped + tuple((bank[source_id].origin, reason) for source_id, reason in inaudible.items()))
