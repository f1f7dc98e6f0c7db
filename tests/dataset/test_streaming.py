"""Streaming into a DataLoader with two workers: raw `load_dataset(streaming=True)`, `stream_reasonaudio`
and `StreamingTriplets` give what the map-style loaders give."""
import re
import shutil
from pathlib import Path

import datasets
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from reasonaudio_dataset import collate_reasonaudio, load_reasonaudio, stream_reasonaudio
from reasonaudio_dataset.loading import torchcodec_usable

torch = pytest.importorskip("torch")
from reasonaudio.training.triplets import ContrastiveTriplets, StreamingTriplets  # noqa: E402


def _loader(dataset, batch_size=4, **kwargs):
    return torch.utils.data.DataLoader(dataset, batch_size=batch_size, num_workers=2, **kwargs)


def test_raw_streamed_tables_batch_with_the_collate_function(small_corpus):
    if not torchcodec_usable():
        pytest.skip("datasets decodes audio with torchcodec, which is not installed here")
    reference = load_reasonaudio(str(small_corpus)).corpus
    streamed = datasets.load_dataset(str(small_corpus), "corpus", split="test", streaming=True).with_format("torch")
    batches = list(_loader(streamed, collate_fn=collate_reasonaudio))
    ids = [clip for batch in batches for clip in batch["clip_id"]]
    assert sorted(ids) == sorted(reference["clip_id"]) and len(ids) == len(set(ids))
    batch, row = batches[0], reference[reference["clip_id"].index(batches[0]["clip_id"][0])]
    assert batch["audio"]["array"].dtype == torch.float32 and batch["audio"]["array"].shape == (4, 10 * 16000)
    np.testing.assert_array_equal(batch["audio"]["array"][0].numpy(), row["audio"]["array"])
    assert batch["duration"].shape == (4,) and batch["events"][0][0]["label"] == row["events"][0]["label"]
    sources = datasets.load_dataset(str(small_corpus), "sources", split="test", streaming=True)
    batch = next(iter(_loader(sources, batch_size=8, collate_fn=collate_reasonaudio)))
    lengths = batch["audio"]["num_samples"]
    assert len(set(lengths.tolist())) > 1 and batch["audio"]["array"].shape == (8, int(lengths.max()))  # padded
    assert all(batch["audio"]["array"][i, lengths[i]:].abs().sum() == 0 for i in range(8))


def test_stream_reasonaudio_gives_load_reasonaudio_rows_across_two_workers(small_corpus, tmp_path):
    whole = load_reasonaudio(str(small_corpus), task="order", sampling_rate=22050)
    streamed = stream_reasonaudio(str(small_corpus), task="order", sampling_rate=22050)
    batches = list(_loader(streamed.corpus, collate_fn=collate_reasonaudio))
    ids = [clip for batch in batches for clip in batch["clip_id"]]
    assert sorted(ids) == sorted(whole.corpus["clip_id"]) and len(ids) == len(set(ids))
    for batch in batches[:2]:
        for clip, array in zip(batch["clip_id"], batch["audio"]["array"]):
            np.testing.assert_array_equal(array.numpy(), whole.corpus[whole.corpus["clip_id"].index(clip)]["audio"]["array"])
        assert batch["audio"]["sampling_rate"].tolist() == [22050] * len(batch["clip_id"])
    assert [row["query_id"] for row in streamed.queries] == whole.queries["query_id"]
    assert sorted((row["query_id"], row["clip_id"]) for row in streamed.qrels) == \
        sorted(zip(whole.qrels["query_id"], whole.qrels["clip_id"]))
    with pytest.raises(ValueError, match="unknown task"):
        stream_reasonaudio(str(small_corpus), task="counting")
    with pytest.raises(ValueError, match="an integer from 1000 to"):
        stream_reasonaudio(str(small_corpus), sampling_rate=16)
    with pytest.raises(ValueError, match="is not a ReasonAudio corpus"):
        stream_reasonaudio(str(tmp_path))


@pytest.fixture
def straddling(small_corpus, tmp_path):
    """The small corpus with its clips cut into two files right after a query's first candidate, so that the
    rest of that query's candidates, its positive among them, lie in the next file."""
    folder = tmp_path / "straddling"
    shutil.copytree(small_corpus, folder)
    files = sorted(folder.glob("corpus/test-*.parquet"))
    table = pa.concat_tables([pq.read_table(path) for path in files])
    queries = datasets.load_dataset(str(folder), "queries", split="test")
    query = next(q for q in queries.select(range(10, len(queries))) if q["positive"] != q["candidates"][0])
    cut = table.column("clip_id").to_pylist().index(query["candidates"][0]) + 1
    pq.write_table(table.slice(0, cut), files[0], row_group_size=100)
    pq.write_table(table.slice(cut), files[1], row_group_size=100)
    return folder


def _by_text(items):
    return {text: clips for text, *clips in items}


@pytest.mark.slow
def test_streaming_triplets_are_the_map_style_items_once_each_in_two_workers(straddling):
    streamed = StreamingTriplets(str(straddling), split="test", seed=3)      # one group across the two files
    reference = ContrastiveTriplets(str(straddling), split="test", seed=3)
    loader = _loader(streamed, batch_size=None, persistent_workers=True)
    assert len(streamed) == len(reference)
    drawn, orders = [], []
    for epoch in range(2):                                       # set_epoch reaches the persistent workers
        streamed.set_epoch(epoch)
        reference.set_epoch(epoch)
        items = list(loader)
        expected = _by_text(reference[i] for i in range(len(reference)))
        assert len(items) == len(expected) and _by_text(items).keys() == expected.keys()
        assert all(torch.equal(a, b) for text, clips in _by_text(items).items() for a, b in zip(clips, expected[text]))
        drawn.append(_by_text(items))
        orders.append([text for text, *_ in items])
    assert any(not torch.equal(drawn[0][text][1], drawn[1][text][1]) for text in drawn[0])   # other negatives
    shuffled = list(_loader(StreamingTriplets(str(straddling), split="test", seed=3, shuffle_buffer=8), batch_size=None))
    assert [text for text, *_ in shuffled] != orders[0] and sorted(orders[0]) == sorted(text for text, *_ in shuffled)
    assert all(torch.equal(a, b) for text, clips in _by_text(shuffled).items() for a, b in zip(clips, drawn[0][text]))


def test_streaming_triplets_of_one_task_augmented_and_without_hard_negatives(small_corpus):
    streamed = list(_loader(StreamingTriplets(str(small_corpus), split="test", task="order", augment="noisy",
                                              hard_negatives=False), batch_size=None))
    reference = ContrastiveTriplets(str(small_corpus), split="test", task="order", augment="noisy", hard_negatives=False)
    expected = _by_text(reference[i] for i in range(len(reference)))
    assert all(len(item) == 2 for item in streamed) and _by_text(streamed).keys() == expected.keys()
    assert all(torch.equal(clips[0], expected[text][0]) for text, clips in _by_text(streamed).items())
    clean = _by_text(ContrastiveTriplets(str(small_corpus), split="test", task="order", hard_negatives=False)[i]
                     for i in range(len(reference)))
    assert any(not torch.equal(clips[0], clean[text][0]) for text, clips in _by_text(streamed).items())


def test_streaming_triplets_refuse_a_corpus_whose_groups_are_not_consecutive(small_corpus, tmp_path):
    folder = tmp_path / "shuffled"
    shutil.copytree(small_corpus, folder)
    path = sorted(folder.glob("corpus/test-*.parquet"))[0]
    table = pq.read_table(path)
    order = list(range(table.num_rows))
    order[5], order[6] = order[6], order[5]                     # the first two groups interleaved
    pq.write_table(table.take(order), path, row_group_size=100)
    with pytest.raises(ValueError, match="rows of query .* are not consecutive"):
        list(StreamingTriplets(str(folder), split="test"))


def test_streaming_triplets_refuse_an_unknown_keyword_before_reading():
    message = ("StreamingTriplets: unknown keyword(s) ['shuffle']; it takes path_or_repo, split, task, sampling_rate, "
               "backend, shuffle_buffer, seed, augment, hard_negatives")
    with pytest.raises(ValueError, match=re.escape(message)):       # the folder does not exist: nothing was read
        StreamingTriplets("/no/such/folder", shuffle=8)


def test_a_truncated_file_is_one_line_naming_it_before_streaming(small_corpus, tmp_path):
    """Read as it streamed, a truncated Parquet file failed mid-way with ArrowInvalid naming `<Buffer>`."""
    copy = Path(shutil.copytree(small_corpus, tmp_path / "copy"))
    damaged = sorted(copy.glob("corpus/test-*.parquet"))[0]
    damaged.write_bytes(damaged.read_bytes()[: damaged.stat().st_size // 2])
    with pytest.raises(ValueError, match=f"{damaged} is damaged .*reasonaudio validate"):
        stream_reasonaudio(str(copy), split="test")
