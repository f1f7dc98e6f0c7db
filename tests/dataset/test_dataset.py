"""The generated folder as a Hub dataset: card, loading helpers, training split, publishing, viewer."""
import json
import shutil
from pathlib import Path
from unittest import mock

import datasets
import numpy as np
import pyarrow.parquet as pq
import pytest
import yaml

from reasonaudio.cli import main
from reasonaudio.generation.pipeline import generate
from reasonaudio.generation.publish import NotPublishable, files_to_upload, publish
from reasonaudio.core.relations import NO, Atom, Event, relevant
from reasonaudio.generation.validate import validate
from reasonaudio_dataset import decode_audio, load_reasonaudio
from reasonaudio_dataset.loading import torchcodec_usable
from reasonaudio_dataset.schema import CONFIGS

from ..conftest import small_config, write_tone


@pytest.fixture(scope="module")
def two_splits(tmp_path_factory) -> Path:
    """A folder holding a test split and a train split generated after it."""
    out = tmp_path_factory.mktemp("two-splits")
    generate(small_config(out, source="synthetic:?variants=30"))
    generate(small_config(out, source="synthetic:?variants=30", split="train"))
    return out


def card_yaml(folder: Path) -> dict:
    return yaml.safe_load((folder / "README.md").read_text().split("---\n")[1])


@pytest.mark.slow
def test_card_declares_configs_features_splits_and_licence(two_splits):
    meta = card_yaml(two_splits)
    assert [c["config_name"] for c in meta["configs"]] == list(CONFIGS)
    assert meta["license"] == "cc0-1.0" and meta["pretty_name"] == "ReasonAudio"
    infos = {i["config_name"]: i for i in meta["dataset_info"]}
    for config in CONFIGS:
        splits = {s["name"]: s["num_examples"] for s in infos[config]["splits"]}
        assert set(splits) == {"test", "train"}
        assert splits["test"] == datasets.load_dataset(str(two_splits), config, split="test").num_rows
    text = (two_splits / "README.md").read_text()
    assert "2605.03361" in text and "Known limitations" in text and "Random group accuracy" in text
    queries = datasets.load_dataset(str(two_splits), "queries", split="test")
    for task in ("negation", "order", "overlap", "duration", "mix"):
        first = queries[queries["task"].index(task)]["text"]
        assert f"**{task}** — query: “{first}”" in text


def test_every_config_loads_with_no_extra_arguments_and_suits_the_viewer(two_splits):
    for config in CONFIGS:
        for split in ("test", "train"):
            assert datasets.load_dataset(str(two_splits), config, split=split).num_rows > 0
    corpus = datasets.load_dataset(str(two_splits), "corpus", split="test")
    assert isinstance(corpus.features["audio"], datasets.Audio)
    for path in two_splits.glob("corpus/*.parquet"):
        metadata = pq.ParquetFile(path).metadata
        assert max(metadata.row_group(i).num_rows for i in range(metadata.num_row_groups)) <= 100
        assert path.stat().st_size <= 500_000_000
    assert not list(two_splits.rglob("*.py"))


def test_card_metadata_is_what_the_hub_and_mteb_expect(two_splits):
    meta = card_yaml(two_splits)
    assert [c["config_name"] for c in meta["configs"] if c.get("default")] == ["queries"]
    assert datasets.load_dataset(str(two_splits), split="test").column_names == \
        datasets.load_dataset(str(two_splits), "queries", split="test").column_names   # the bare call: queries
    assert meta["annotations_creators"] == ["machine-generated"] and meta["multilinguality"] == "monolingual"
    assert meta["source_datasets"] == ["original"]                                    # the synthetic bank
    mteb = pytest.importorskip("mteb")
    from reasonaudio_dataset.mteb_task import reasonaudio_task

    metadata = reasonaudio_task(str(two_splits)).metadata
    assert meta["task_categories"] == metadata._hf_task_type() + metadata._hf_task_category()
    for info in meta["dataset_info"]:                                                 # as push_to_hub computes them
        config, files = info["config_name"], list(two_splits.glob(f"{info['config_name']}/*.parquet"))
        for split in info["splits"]:
            loaded = datasets.load_dataset(str(two_splits), config, split=split["name"])
            assert split["num_bytes"] == loaded._estimate_nbytes() and split["num_examples"] == loaded.num_rows
        assert info["download_size"] == sum(f.stat().st_size for f in files)
        assert info["dataset_size"] == sum(split["num_bytes"] for split in info["splits"])


def test_corpus_comes_in_enough_files_to_stream_into_several_workers(small_corpus, tmp_path):
    from types import SimpleNamespace

    from reasonaudio.generation.pipeline import GenerateConfig, Plan

    at_16k = Plan.corpus_files(SimpleNamespace(config=GenerateConfig(sample_rate=16000), clips=[None] * 10_000))
    assert len(at_16k) == 8 and at_16k[0][1:] == (0, 1200) and at_16k[-1][2] == 10_000
    assert all(first % 100 == 0 and next_first == end for (_, first, end), (_, next_first, _) in
               zip(at_16k, at_16k[1:]))                                                # whole row groups, no gap
    assert len(Plan.corpus_files(SimpleNamespace(config=GenerateConfig(), clips=[None] * 1000))) == 8
    at_44k = Plan.corpus_files(SimpleNamespace(config=GenerateConfig(), clips=[None] * 10_000))
    assert len(at_44k) == 20                                                          # 500 MB of raw PCM at most
    assert len(list(small_corpus.glob("corpus/test-*.parquet"))) == 2                 # 180 clips: 2 row groups
    torch = pytest.importorskip("torch")
    streamed = datasets.load_dataset(str(small_corpus), "corpus", split="test", streaming=True)
    assert streamed.num_shards == 2
    loader = torch.utils.data.DataLoader(streamed.select_columns(["clip_id"]), batch_size=None, num_workers=2)
    seen = [row["clip_id"] for row in loader]
    assert sorted(seen) == sorted(datasets.load_dataset(str(small_corpus), "corpus", split="test")["clip_id"])


def test_train_split_shares_no_query_text_or_recording_with_test(two_splits):
    assert validate(two_splits) == []
    read = {s: datasets.load_dataset(str(two_splits), "queries", split=s) for s in ("test", "train")}
    assert not set(read["test"]["text"]) & set(read["train"]["text"])
    origins = {s: set(datasets.load_dataset(str(two_splits), "sources", split=s)["origin"]) for s in ("test", "train")}
    assert not origins["test"] & origins["train"]


def test_validate_catches_a_text_shared_between_splits(two_splits, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(two_splits, copy)
    path = next(copy.glob("queries/train-*.parquet"))
    table = pq.read_table(path)
    rows = table.to_pylist()
    rows[0]["text"] = datasets.load_dataset(str(copy), "queries", split="test")[0]["text"]
    pq.write_table(type(table).from_pylist(rows, schema=table.schema), path)
    assert any("share 1 query text" in p for p in validate(copy))


@pytest.mark.parametrize("backend", [None, "soundfile", "torchcodec"])
def test_load_reasonaudio_gives_the_same_arrays_with_either_decoder(small_corpus, backend):
    if backend == "torchcodec" and not torchcodec_usable():
        pytest.skip("torchcodec or FFmpeg's libraries are not installed")
    data = load_reasonaudio(str(small_corpus), backend=backend)
    raw = datasets.load_dataset(str(small_corpus), "corpus", split="test").cast_column(
        "audio", datasets.Audio(decode=False))
    reference, rate = decode_audio(raw[5]["audio"]["bytes"], "soundfile")
    audio = data.corpus[5]["audio"]
    assert audio["sampling_rate"] == rate == 16000 and audio["array"].dtype == np.float32
    np.testing.assert_array_equal(audio["array"], reference)


def test_decode_audio_falls_back_to_torchcodec_for_what_soundfile_cannot_read(small_corpus, monkeypatch):
    if not torchcodec_usable():
        pytest.skip("torchcodec or FFmpeg's libraries are not installed")
    import soundfile

    raw = datasets.load_dataset(str(small_corpus), "corpus", split="test").cast_column(
        "audio", datasets.Audio(decode=False))[5]["audio"]["bytes"]
    reference, rate = decode_audio(raw, "soundfile")

    def unreadable(*args, **kwargs):
        raise soundfile.LibsndfileError(1)

    monkeypatch.setattr(soundfile, "read", unreadable)
    samples, fallback_rate = decode_audio(raw)
    np.testing.assert_array_equal(samples, reference)
    assert fallback_rate == rate
    with pytest.raises(soundfile.LibsndfileError):
        decode_audio(raw, "soundfile")


def test_load_reasonaudio_filters_a_task_and_resamples(small_corpus):
    data = load_reasonaudio(str(small_corpus), task="order", sampling_rate=16000)
    assert set(data.queries["task"]) == {"order"} and set(data.corpus["task"]) == {"order"}
    assert set(data.qrels["clip_id"]) <= set(data.corpus["clip_id"])
    audio = data.corpus[0]["audio"]
    assert audio["sampling_rate"] == 16000 and len(audio["array"]) == 10 * 16000
    with pytest.raises(ValueError, match="unknown task"):
        load_reasonaudio(str(small_corpus), task="counting")


def test_contrastive_triplets_yield_text_positive_and_a_minimal_pair(two_splits):
    torch = pytest.importorskip("torch")
    from reasonaudio.training.triplets import ContrastiveTriplets

    triplets = ContrastiveTriplets(str(two_splits), split="train")
    queries = datasets.load_dataset(str(two_splits), "queries", split="train")
    corpus = datasets.load_dataset(str(two_splits), "corpus", split="train").remove_columns("audio")
    events = {row["clip_id"]: tuple(Event(**e) for e in row["events"]) for row in corpus}
    assert len(triplets) == queries.num_rows
    for index in (0, 7, len(triplets) - 1):
        text, positive, negative = triplets[index]
        query = queries[index]
        assert text == query["text"] and positive.dtype == torch.float32 and positive.shape == negative.shape
        assert not torch.equal(positive, negative)
        atoms = [Atom.from_dict(a) for a in json.loads(query["constraint"])["all"]]
        hard = [c for c in query["hard_negatives"]]
        assert all(relevant(atoms, events[c]) is NO for c in hard)
    loader = torch.utils.data.DataLoader(triplets, batch_size=4)
    texts, positives, negatives = next(iter(loader))
    assert len(texts) == 4 and positives.shape == negatives.shape == (4, 10 * 16000)
    pairs = ContrastiveTriplets(str(two_splits), split="train", hard_negatives=False)   # for plain in-batch InfoNCE
    text, positive = pairs[7]
    assert text == triplets[7][0] and torch.equal(positive, triplets[7][1]) and pairs.clip_ids(7) == triplets.clip_ids(7)[:1]


def test_set_epoch_reaches_persistent_dataloader_workers(two_splits):
    torch = pytest.importorskip("torch")
    from reasonaudio.training.triplets import ContrastiveTriplets

    triplets = ContrastiveTriplets(str(two_splits), split="train", seed=3)
    loader = torch.utils.data.DataLoader(triplets, batch_size=None, num_workers=2, persistent_workers=True)
    reference = ContrastiveTriplets(str(two_splits), split="train", seed=3)
    drawn = []
    for epoch in range(3):
        triplets.set_epoch(epoch)
        reference.set_epoch(epoch)
        negatives = [negative for _, _, negative in loader]
        assert all(torch.equal(negative, reference[i][2]) for i, negative in enumerate(negatives))
        drawn.append(negatives)
    assert any(not torch.equal(a, b) for later in drawn[1:] for a, b in zip(drawn[0], later))  # not epoch 0's draws


def test_publish_dry_run_lists_every_file_without_network(two_splits, capsys):
    with mock.patch("huggingface_hub.HfApi", side_effect=AssertionError("no network in a dry run")):
        assert main(["publish", str(two_splits), "--repo-id", "org/reasonaudio", "--dry-run"]) == 0
    printed = capsys.readouterr().out
    for path, size in files_to_upload(two_splits):
        assert path in printed and f"{size:,d}" in printed
    assert "README.md" in printed and "staging" not in printed


@pytest.mark.slow
def test_publish_uploads_the_folder_that_loads(two_splits, tmp_path, monkeypatch, capsys):
    folder = tmp_path / "folder"
    shutil.copytree(two_splits, folder)
    (folder / ".reasonaudio" / "staging").mkdir(exist_ok=True)
    (folder / ".reasonaudio" / "staging" / "leftover.parquet").write_bytes(b"x")
    monkeypatch.setenv("HF_TOKEN", "hf_secret_token_value")
    with mock.patch("huggingface_hub.HfApi.create_repo") as create_repo, \
            mock.patch("huggingface_hub.HfApi.create_branch") as create_branch, \
            mock.patch("huggingface_hub.HfApi.upload_folder") as upload_folder:
        assert main(["publish", str(folder), "--repo-id", "org/reasonaudio", "--private", "--revision", "v1"]) == 0
    create_repo.assert_called_once_with("org/reasonaudio", repo_type="dataset", private=True, exist_ok=True)
    create_branch.assert_called_once_with("org/reasonaudio", repo_type="dataset", branch="v1", exist_ok=True)
    kwargs = upload_folder.call_args.kwargs
    assert kwargs["repo_id"] == "org/reasonaudio" and kwargs["repo_type"] == "dataset" and kwargs["revision"] == "v1"
    assert "hf_secret_token_value" not in capsys.readouterr().out
    assert 'load_dataset("org/reasonaudio", "queries"' in (folder / "README.md").read_text()
    # the exact files an upload sends make a loadable dataset on their own
    sent = tmp_path / "sent"
    for path, _ in files_to_upload(folder):
        (sent / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(folder / path, sent / path)
    assert not (sent / ".reasonaudio" / "staging").exists()
    for config in CONFIGS:
        assert datasets.load_dataset(str(sent), config, split="train").num_rows > 0
    assert validate(sent) == []


def test_a_published_card_names_its_repository_and_no_local_path(tmp_path):
    root = tmp_path / "my-own-disk" / "sounds"
    for label in ("tone_a", "tone_b", "tone_c", "tone_d", "tone_e", "tone_f"):
        for i in range(3):
            write_tone(root / label / f"{i}.wav", seconds=1.0 + i * 0.3, freq=200 + 90 * len(label) * (i + 1))
    (root / "tone_a" / "broken.wav").write_bytes(b"not audio")     # soundfile's message names its full path
    out = tmp_path / "out"
    generate(small_config(out, source=f"folder:{root}?as_split=test", skip_bad_sources=True, atomic_sounds=100,
                          tasks=("negation", "order")))
    with mock.patch("huggingface_hub.HfApi.create_repo"), mock.patch("huggingface_hub.HfApi.upload_folder"):
        publish(out, "org/reasonaudio")
    card = (out / "README.md").read_text()
    assert 'load_dataset("org/reasonaudio", "queries"' in card and "PATH_OR_REPO_ID" not in card
    assert str(tmp_path) not in card and "my-own-disk" not in card
    assert "from `folder:<local folder>?as_split=test`" in card and "`folder:tone_a/broken.wav`: unreadable" in card
    assert card_yaml(out)["source_datasets"] == ["extended|other"]
    assert validate(out) == []


@pytest.mark.parametrize("source, shown, hub", [
    ("synthetic:?variants=30", "synthetic:?variants=30", "original"),
    ("esc50:/home/me/ESC-50?as_split=train", "esc50:<ESC-50 folder>?as_split=train", "extended|esc50"),
    ("fsd50k:~/data/FSD50K", "fsd50k:<FSD50K folder>", "extended|fsd50k"),
    ("hf:org/sounds?label=category", "hf:org/sounds?label=category", "extended|org/sounds"),
    ("hf:/data/sounds", "hf:<local dataset>", "extended|other"),
    ("csv:C:\\me\\sounds.csv?license=CC0-1.0", "csv:<local manifest>?license=CC0-1.0", "extended|other"),
])
def test_card_names_sources_by_kind_and_public_name(source, shown, hub):
    from reasonaudio_dataset.card import source_dataset, public_source, without_paths

    assert public_source(source) == shown and source_dataset(source) == hub
    assert without_paths("unreadable: Error opening '/home/me/s/dog/1.wav': bad") == "unreadable: Error opening '1.wav': bad"
    assert without_paths("folder:dog/1.wav, 10/20 s") == "folder:dog/1.wav, 10/20 s"


def test_publish_refuses_a_folder_that_fails_validation(tmp_path, small_corpus):
    folder = tmp_path / "broken"
    shutil.copytree(small_corpus, folder)
    (folder / "README.md").unlink()
    with pytest.raises(NotPublishable, match="fails validation"):
        publish(folder, "org/x", dry_run=True)
    assert main(["publish", str(folder), "--repo-id", "org/x"]) == 1


def test_mteb_loads_the_folder_offline(small_corpus):
    pytest.importorskip("mteb")
    from reasonaudio_dataset.mteb_task import reasonaudio_task

    task = reasonaudio_task(str(small_corpus))
    task.load_data()
    data = task.dataset["default"]["test"]
    queries = datasets.load_dataset(str(small_corpus), "queries", split="test")
    assert {"id", "audio"} <= set(data["corpus"].column_names) and {"id", "text"} <= set(data["queries"].column_names)
    assert sorted(data["queries"]["id"]) == sorted(queries["query_id"])
    for query in queries.select(range(3)):
        assert data["relevant_docs"][query["query_id"]][query["positive"]] == 1


def test_loading_a_split_draws_no_progress_bar_of_datasets(small_corpus, tmp_path, monkeypatch, capfd):
    """The tables are converted once and quickly: datasets' "Generating test split" bar, once a table (dozens in a
    demo), would only bury what the command says."""
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "cache")   # converted anew
    datasets.enable_progress_bars()
    load_reasonaudio(str(small_corpus))
    assert "Generating" not in capfd.readouterr().err and datasets.is_progress_bar_enabled()
