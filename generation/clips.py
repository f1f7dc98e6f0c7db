"""One clip renderer for generate and validate: a clip's timeline in, its audio and its acoustics out.

`generate` renders every corpus clip with it and `validate` renders each clip again to compare, so the two can
never drift apart. A robustness build's acoustic condition draws its parameters once per query group (every
version of a minimal pair gets the same draw): the renderer keeps the chain of the group it is rendering, whose
clips are consecutive in the corpus. Worker processes receive the renderer, with its sound bank, once
(`RenderWorkers`); each job then names clips only.
"""
from __future__ import annotations

import json
import multiprocessing
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Mapping, Sequence

import numpy as np

from reasonaudio.core.relations import Event

from .acoustics import Condition
from .acoustics.chain import group_chain
from .bank import SoundBank
from .render import render


def unchanged(condition: Condition) -> str:
    """The `acoustics` of a clip that a condition without transforms leaves as mixed."""
    return json.dumps({"condition": condition.name, "transforms": []})


@dataclass
class ClipRenderer:
    """Renders the clips of one split.

    Args:
        bank: the split's sounds.
        clip_seconds, seed, split: the plan's (a group's draw is seeded by the plan's seed and split).
        conditions: corpus config -> its acoustic condition (None: the clean mix, as a build without conditions).
        groups: query id -> the timeline of each of its candidates, what a condition draws for; needed only
            for conditions with transforms.
    """

    bank: SoundBank
    clip_seconds: float
    seed: int
    split: str
    conditions: Mapping[str, Condition | None]
    groups: Mapping[str, tuple] = field(default_factory=dict)
    _chain: object = field(default=None, init=False, repr=False)

    @property
    def sample_rate(self) -> int:
        return self.bank.sample_rate

    def transformed(self, config: str) -> bool:
        """Whether corpus config `config` changes the mix (its clips carry a group's draw)."""
        condition = self.conditions.get(config)
        return condition is not None and not condition.clean

    def render(self, events: Sequence[Event], query_id: str, config: str) -> tuple[np.ndarray, str]:
        """One clip of corpus config `config`.

        Args:
            events: the clip's timeline.
            query_id: the query whose group the clip belongs to.
            config: the corpus config (`corpus`, `corpus_<condition>`).

        Returns:
            The float32 samples, and the `acoustics` JSON the clip carries.

        Raises:
            KeyError: an event names a sound the bank lacks, or the query's group is unknown.
            ValueError: no draw of the group's condition keeps every sound audible (`group_chain`).
        """
        events, condition = tuple(events), self.conditions.get(config)
        if not self.transformed(config):
            return render(events, self.bank, self.clip_seconds), unchanged(condition) if condition is not None else ""
        chain, members = self._chain, self.groups[query_id]
        if chain is None or chain.key != query_id or chain.condition is not condition:
            chain = self._chain = group_chain(condition, self.seed, self.split, query_id, members, self.bank,
                                              self.clip_seconds)
        # the group's clips were rendered and run through the chain when its draw was checked
        done = chain.checked(members.index(events)) if events in members else None
        if done is None:            # a timeline not in the group, or one it holds twice
            done = chain(render(events, self.bank, self.clip_seconds))
        return done, json.dumps(chain.parameters())


_RENDERER: ClipRenderer | None = None      # this process's renderer (`RenderWorkers`)


def _hold(renderer: ClipRenderer) -> None:
    global _RENDERER
    _RENDERER = renderer


def worker_renderer() -> ClipRenderer:
    """The renderer this process was given (a job run by `RenderWorkers.map` calls it)."""
    return _RENDERER


class RenderWorkers:
    """`count` processes, each handed the renderer once, mapping jobs in order (here, in this process, for one).

    Args:
        renderer: what each job renders with (`worker_renderer()` inside the job).
        count: processes; 1 runs every job in this one.
    """

    def __init__(self, renderer: ClipRenderer, count: int):
        self.renderer, self.count, self.pool = renderer, count, None

    def __enter__(self) -> "RenderWorkers":
        if self.count > 1:
            methods = multiprocessing.get_all_start_methods()
            context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
            self.pool = context.Pool(self.count, _hold, (self.renderer,))
        else:
            _hold(self.renderer)
        return self

    def __exit__(self, *exception) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool.join()

    def map(self, function: Callable, jobs: Iterable) -> Iterator:
        """`function` over `jobs`, results in order, at most two jobs per process in flight (Pool.imap would queue
        every job at once and let finished audio pile up in memory when the caller lags)."""
        if self.pool is None:
            yield from map(function, jobs)
            return
        pending = deque()
        for job in jobs:
            pending.append(self.pool.apply_async(function, (job,)))
            if len(pending) >= 2 * self.count:
                yield pending.popleft().get()
        while pending:
            yield pending.popleft().get()
