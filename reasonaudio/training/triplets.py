"""Torch datasets for contrastive fine-tuning: (query text, positive audio, hard-negative audio), read
whole (`ContrastiveTriplets`, map-style) or streamed file by file (`StreamingTriplets`); the same items."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from reasonaudio.generation.acoustics import DrawRefused, GroupChain, as_condition
from reasonaudio_dataset.loading import audio_decoder, load_reasonaudio
from reasonaudio_dataset.schema import AUDIO_ROWS_PER_GROUP
from reasonaudio_dataset.streaming import split_queries, streamed_corpus
from reasonaudio_metric.functional import keyword_group


class _SharedEpoch:
    """The epoch in shared memory, so that `set_epoch` reaches DataLoader workers that outlive an epoch
    (`persistent_workers=True`) too; call it before iterating the loader."""

    def _share_epoch(self) -> None:
        self._epoch = torch.zeros((), dtype=torch.int64).share_memory_()

    @property
    def epoch(self) -> int:
        return int(self._epoch)

    @epoch.setter
    def epoch(self, epoch: int) -> None:
        self.set_epoch(epoch)

    def set_epoch(self, epoch: int) -> None:
        self._epoch.fill_(epoch)


@dataclass(frozen=True)
class _Draws:
    """How each item is drawn, as `ContrastiveTriplets` takes it: `StreamingTriplets`' keyword group."""

    seed: int = 0
    augment: object = None
    hard_negatives: bool = True


def _condition(augment):
    """The acoustic condition `augment` names, checked before any loading; None for none or clean."""
    if augment is None:
        return None
    condition = as_condition(augment)
    return None if condition.clean else condition


def _check_hard_negatives(queries, hard_negatives: bool) -> None:
    without_hard = [q for q, hard in zip(queries["query_id"], queries["hard_negatives"]) if not hard]
    if without_hard and hard_negatives:
        raise ValueError(f"{len(without_hard)} queries have no hard negative, e.g. {without_hard[:3]}")


def _draw(query: dict, seed: int, epoch: int, index: int, hard_negatives: bool):
    """The hard negative item `index` yields this epoch (None without hard negatives) and the generator its
    augmentation draws from: both from (seed, epoch, index) alone, wherever the item is made."""
    rng = np.random.default_rng([seed, epoch, index])
    if not hard_negatives:
        return None, rng
    return query["hard_negatives"][rng.integers(len(query["hard_negatives"]))], rng


def _spans(samples: np.ndarray, rate: int, events) -> list[np.ndarray]:
    """The stretch of the mix where each annotated sound plays."""
    return [samples[int(e["onset"] * rate):int(e["offset"] * rate)] for e in events]


def _item(text: str, positive: np.ndarray, negative, rate: int, spans, condition, rng) -> tuple:
    """(text, positive[, negative]) as float32 tensors, under `condition` with one draw for both clips."""
    if condition is not None:
        # noise against the quietest annotated stretch of either clip, one draw for both; a draw that
        # would hide an annotated sound or clip either clip leaves the item as it is (its text would no
        # longer be true)
        try:
            chain = GroupChain(condition, int(rng.integers(2 ** 31)), rate, len(positive), spans,
                               clips=[positive] + ([] if negative is None else [negative]))
            positive, negative = chain(positive), None if negative is None else chain(negative)
        except DrawRefused:
            pass
    if negative is None:
        return text, torch.from_numpy(positive)
    return text, torch.from_numpy(positive), torch.from_numpy(negative)


class ContrastiveTriplets(_SharedEpoch, torch.utils.data.Dataset):
    """One item per query of a split (normally `train`): its text, its positive clip and one of its
    minimal-pair negatives (the clip that differs only in the tested attribute), as float32 tensors.
    With `hard_negatives=False`, (text, positive) pairs: the negative is never read or decoded.

    Which hard negative a query yields is drawn from (seed, epoch, index); call `set_epoch` between
    epochs to cycle through them. The epoch lives in shared memory, so `set_epoch` reaches DataLoader
    workers that outlive an epoch (`persistent_workers=True`) too; call it before iterating the loader.

    `augment` (a preset name such as "noisy" or "wild", a YAML file, or an audiomentations `Compose`)
    applies an acoustic condition on the fly, in the DataLoader's workers. Its parameters (noise, room,
    codec) are drawn once per item from (seed, epoch, index) and applied to the positive and the hard
    negative alike: augmentation that differed between them would itself become the cue a model learns.
    Transforms that move, stretch, mask or crop audio are refused by name, as in `generate --acoustics`.

    Args:
        path_or_repo: a build's folder or Hub id.
        split, task, sampling_rate, backend: as `load_reasonaudio` (split defaults to "train").
        seed: draws the hard negative and the augmentation of each item with the epoch and index.
        augment: None, a preset name, a YAML file or an audiomentations `Compose`.
        hard_negatives: False yields (text, positive) pairs.

    Returns:
        A map-style `torch.utils.data.Dataset` of (text, positive, hard negative) items, audio as float32
        tensors.
    """

    def __init__(self, path_or_repo: str, split: str = "train", task: str | None = None,
                 sampling_rate: int | None = None, seed: int = 0, backend: str | None = None, augment=None,
                 hard_negatives: bool = True):
        self.augment = _condition(augment)
        data = load_reasonaudio(path_or_repo, task=task, split=split, sampling_rate=sampling_rate, backend=backend)
        self.queries, self.corpus = data.queries, data.corpus
        self.row_of = {clip_id: i for i, clip_id in enumerate(self.corpus.with_format(None)["clip_id"])}
        _check_hard_negatives(self.queries, hard_negatives)
        self.seed, self.hard_negatives = seed, hard_negatives
        self._share_epoch()

    def __len__(self) -> int:
        return len(self.queries)

    def clip(self, clip_id: str) -> tuple[np.ndarray, int, list[np.ndarray]]:
        """A clip as training reads it: the corpus row is decoded only when a triplet needs it.

        Args:
            clip_id: the clip's id in the split's corpus.

        Returns:
            Its samples (float32 mono), their rate, and the stretch of the mix where each annotated sound plays.
        """
        row = self.corpus[self.row_of[clip_id]]
        samples, rate = row["audio"]["array"], row["audio"]["sampling_rate"]
        return samples, rate, _spans(samples, rate, row["events"])

    def clip_ids(self, index: int) -> tuple[str, ...]:
        """The (positive, hard negative) clip ids item `index` yields this epoch (e.g. to look up their events);
        (positive,) without hard negatives."""
        query = self.queries[index]
        negative, _ = _draw(query, self.seed, self.epoch, index, self.hard_negatives)
        return (query["positive"],) if negative is None else (query["positive"], negative)

    def __getitem__(self, index: int) -> tuple[torch.Tensor | str, ...]:
        query = self.queries[index]
        negative, rng = _draw(query, self.seed, self.epoch, index, self.hard_negatives)
        positive, rate, spans = self.clip(query["positive"])
        negative, _, more = (None, rate, []) if negative is None else self.clip(negative)
        return _item(query["text"], positive, negative, rate, spans + more, self.augment, rng)


class StreamingTriplets(_SharedEpoch, torch.utils.data.IterableDataset):
    """`ContrastiveTriplets` streamed: for the same (seed, epoch) the same items, each query once per epoch,
    read from the corpus file by file (a local folder or a Hub repository, never downloaded whole); only
    the clips an item uses are decoded. Each DataLoader worker reads its own corpus files (at least 8 at
    the default size, so up to 8 workers share the work); `len()` is the number of items of an epoch.

    Without `shuffle_buffer`, items come in corpus order (queries of one task together); with it, the
    files in an order drawn per epoch and the items drawn from a buffer of that many (held encoded: 100
    take at most 64 MB at 16 kHz). A query's candidates are consecutive corpus rows in order, as `generate`
    writes them: the file holding its first candidate yields it, reading on into the next file where its
    group continues; a corpus whose groups are not consecutive is a one-line error.

    Args:
        path_or_repo, split, task, sampling_rate, backend: as `ContrastiveTriplets`.
        shuffle_buffer: items drawn from a buffer of this many (0: corpus order).
        **draws: how each item is drawn, keywords as `ContrastiveTriplets`: seed, augment, hard_negatives.

    Returns:
        An iterable `torch.utils.data.IterableDataset` of the same items as `ContrastiveTriplets`.
    """

    def __init__(self, path_or_repo: str, split: str = "train", task: str | None = None,
                 sampling_rate: int | None = None, *, backend: str | None = None, shuffle_buffer: int = 0, **draws):
        draws = keyword_group(_Draws, draws, StreamingTriplets.__init__)
        seed, hard_negatives = draws.seed, draws.hard_negatives
        self.augment = _condition(draws.augment)
        audio_decoder(sampling_rate, backend)   # checks the rate before any loading
        self.path, self.sampling_rate, self.backend = path_or_repo, sampling_rate, backend
        self.queries = split_queries(path_or_repo, split, task)
        _check_hard_negatives(self.queries, hard_negatives)
        columns = ["clip_id", "query_id", "audio"] + (["events"] if self.augment is not None else [])
        self.corpus = streamed_corpus(path_or_repo, split).select_columns(columns)
        self.index_of = {query_id: i for i, query_id in enumerate(self.queries["query_id"])}
        self.first_candidate = [candidates[0] for candidates in self.queries["candidates"]]
        self.seed, self.hard_negatives, self.shuffle_buffer = seed, hard_negatives, shuffle_buffer
        self._share_epoch()

    def __len__(self) -> int:
        return len(self.queries)

    def _rows(self, file: int):
        """The rows of one corpus file, in order. (`iter`, not `for`: a datasets IterableDataset iterated in a
        DataLoader worker would split its one file among the workers again.)"""
        shard = self.corpus.shard(num_shards=self.corpus.num_shards, index=file)
        for batch in shard.iter(batch_size=AUDIO_ROWS_PER_GROUP):
            yield from (dict(zip(batch, values)) for values in zip(*batch.values()))

    def _groups(self, file: int, epoch: int):
        """(query index, negative id or None, rng, {clip id: row}) for each query whose first candidate is in
        corpus file `file`, with the rows of the clips its item uses; a group still open at the end of the
        file is completed from the next one."""
        open_query = None    # the group being read: its query id, and the rows it wants
        for number in range(file, self.corpus.num_shards):
            for row in self._rows(number):
                if open_query is not None and row["query_id"] != open_query:
                    raise ValueError(f"{self.path}: the corpus rows of query {open_query} are not consecutive; "
                                     f"streaming reads the corpus as `reasonaudio generate` writes it")
                index = self.index_of.get(row["query_id"])
                if open_query is None and number == file and index is not None and \
                        row["clip_id"] == self.first_candidate[index]:
                    open_query, query = row["query_id"], self.queries[index]
                    negative, rng = _draw(query, self.seed, epoch, index, self.hard_negatives)
                    wanted, found = {query["positive"], negative} - {None}, {}
                if open_query is not None and row["clip_id"] in wanted:
                    found[row["clip_id"]] = row
                    if len(found) == len(wanted):
                        yield index, negative, rng, found
                        open_query = None
                        if number > file:
                            return
            if open_query is None:
                return
        raise ValueError(f"{self.path}: the corpus ends inside the candidates of query {open_query}")

    def _make(self, index: int, negative, rng, rows: dict) -> tuple:
        query = self.queries[index]
        ids = [query["positive"]] + ([] if negative is None else [negative])
        decoded = audio_decoder(self.sampling_rate, self.backend)({"audio": [rows[i]["audio"] for i in ids]})["audio"]
        samples, rate = [d["array"] for d in decoded], decoded[0]["sampling_rate"]
        spans = [] if self.augment is None else [s for i, x in zip(ids, samples) for s in _spans(x, rate, rows[i]["events"])]
        return _item(query["text"], samples[0], samples[1] if negative is not None else None, rate, spans,
                     self.augment, rng)

    def __iter__(self):
        worker = torch.utils.data.get_worker_info()
        workers, worker_id = (1, 0) if worker is None else (worker.num_workers, worker.id)
        epoch, files = self.epoch, np.arange(self.corpus.num_shards)
        if self.shuffle_buffer:
            files = np.random.default_rng([self.seed, epoch]).permutation(files)
        groups = (group for file in files[worker_id::workers] for group in self._groups(int(file), epoch))
        if self.shuffle_buffer:
            groups = _shuffled(groups, self.shuffle_buffer, np.random.default_rng([self.seed, epoch, workers, worker_id]))
        for group in groups:
            yield self._make(*group)


def _shuffled(items, size: int, rng: np.random.Generator):
    """`items` in an order drawn from a buffer of `size` (as `datasets`' streaming shuffle does)."""
    buffer = []
    for item in items:
        if len(buffer) < size:
            buffer.append(item)
            continue
        slot = int(rng.integers(size))
        yield buffer[slot]
        buffer[slot] = item
    rng.shuffle(buffer)
    yield from buffer
