"""`first-mentioned-first`: reads the query's words but does no reasoning. A clip scores its recognition score
(`counting.bag_scores`) plus 0.5 x the Kendall concordance between the order in which the query text names the
mentioned sounds and the order of their onsets in the clip (over the mentioned sounds the clip contains; 0 with
fewer than two). It exists as a check of the wording: a rule like this must not beat recognition alone
(the baseline that provides the "recognition" tie) by a wide margin on any query shape. If it does, that shape's texts name the sounds in
the order they sound often enough to give the answer away, and the templates need rebalancing."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

import numpy as np

from reasonaudio.models.system import System, clip_events, query_atoms

from .annotations import mentioned_labels
from .counting import bag_scores
from .metadata import BaselineMetadata

if TYPE_CHECKING:
    import torch

ORDER_WEIGHT = 0.5   # concordance in [-1, 1]: at most one mentioned sound's worth either way

METADATA = BaselineMetadata(
    name="first-mentioned-first", reads="the words", short=4, held_to="recognition", flags="above", margin=0.10,
    flag="the order the words name the sounds in gives the answer away; rebalance these templates",
    shows="recognition plus the order the words name the sounds in: whether the wording gives the order away")


def mention_order(text: str, phrases: Mapping[str, Iterable[str]]) -> list[str]:
    """The labels in the order `text` first names them, each by the earliest whole-word, case-insensitive
    match of one of its phrases. Longer phrases are matched first and blanked out, so that a phrase
    inside another ("a dog" in "a dog barking") never claims the longer one's place."""
    remaining, position = text.lower(), {}
    for label, phrase in sorted(((label, p) for label, ps in phrases.items() for p in ps), key=lambda lp: -len(lp[1])):
        match = None if label in position else re.search(rf"\b{re.escape(phrase.lower())}\b", remaining)
        if match:
            position[label] = match.start()
            remaining = remaining[:match.start()] + "#" * (match.end() - match.start()) + remaining[match.end():]
    for label, found in phrases.items():
        if label not in position:
            raise ValueError(f"the query {text!r} names no phrase of {label!r} ({sorted(found) or 'none known'})")
    return sorted(position, key=position.get)


def concordance(orders: Sequence[Sequence[str]], onsets: Sequence[Mapping[str, float]]) -> np.ndarray:
    """(queries x clips) Kendall concordance between each query's mention order and each clip's onsets:
    over the pairs of mentioned sounds the clip contains, (pairs in mention order - pairs against it) /
    pairs (equal onsets count as neither); 0 with fewer than two such sounds."""
    vocabulary = {label: i for i, label in enumerate(sorted({label for clip in onsets for label in clip}))}
    table = np.full((len(onsets), len(vocabulary) + 1), np.nan)   # the last column: a label no clip holds
    for row, clip in enumerate(onsets):
        table[row, [vocabulary[label] for label in clip]] = list(clip.values())
    out = np.zeros((len(orders), len(onsets)))
    for query, order in enumerate(orders):
        times = table[:, [vocabulary.get(label, -1) for label in order]]
        earlier, later = np.triu_indices(len(order), 1)
        signs = np.sign(times[:, later] - times[:, earlier])   # NaN where the clip lacks one of the two
        pairs = np.sum(~np.isnan(signs), axis=1)
        out[query] = np.nansum(signs, axis=1) / np.maximum(pairs, 1)
    return out


class FirstMentionedFirst(System):
    name = "first-mentioned-first"

    def similarity(self, data, device="cpu", batch_size=32, progress=True) -> torch.Tensor:
        import torch

        phrases = data.phrases()
        mentioned = [mentioned_labels(atoms) for atoms in query_atoms(data.queries)]
        orders = [mention_order(text, {label: phrases.get(label, set()) for label in labels})
                  for text, labels in zip(data.queries["text"], mentioned)]
        events = clip_events(data.corpus)
        bag = bag_scores(mentioned, [{event.label for event in clip} for clip in events], device)
        order = concordance(orders, [{event.label: event.onset for event in clip} for clip in events])
        return bag + ORDER_WEIGHT * torch.as_tensor(order, device=device)


def build(location: str = "", device: str = "cpu") -> FirstMentionedFirst:
    """recognition plus agreement of mention order with onset order (reads words, no reasoning)."""
    return FirstMentionedFirst()
