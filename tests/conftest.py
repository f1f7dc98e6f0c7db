import atexit
import os
import shutil
import tempfile

# Each test session gets its own caches (datasets', ReasonAudio's embeddings, MTEB's results: a cache
# keyed on a reused tmp path would serve stale tables), and nothing reaches for the Hub.
CACHES = tempfile.mkdtemp(prefix="reasonaudio-test-caches-")
atexit.register(shutil.rmtree, CACHES, ignore_errors=True)
for variable in ("HF_DATASETS_CACHE", "REASONAUDIO_CACHE", "MTEB_CACHE"):
    os.environ[variable] = os.path.join(CACHES, variable.lower())
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

from pathlib import Path

import numpy as np
import pytest
import soundfile

from reasonaudio.generation.pipeline import GenerateConfig, generate

ESC50 = Path(__file__).resolve().parents[2] / "shared" / "data" / "esc50-subset"

SMALL = dict(source="synthetic:?variants=12", queries_per_task=6, candidates=6, atomic_sounds=96,
             clip_seconds=10.0, sample_rate=16000, seed=4, progress=False)


def small_config(out, **changes) -> GenerateConfig:
    return GenerateConfig(out=str(out), **{**SMALL, **changes})


@pytest.fixture(scope="session")
def small_corpus(tmp_path_factory) -> Path:
    """A complete small corpus from the built-in bank, generated once per test session."""
    out = tmp_path_factory.mktemp("corpus")
    generate(small_config(out))
    return out


@pytest.fixture
def esc50() -> Path:
    if not (ESC50 / "meta" / "esc50.csv").is_file():
        pytest.skip(f"ESC-50 subset not found at {ESC50}")
    return ESC50


def write_tone(path: Path, seconds=1.0, rate=8000, freq=440.0, amplitude=0.5, channels=1):
    t = np.arange(int(seconds * rate)) / rate
    samples = amplitude * np.sin(2 * np.pi * freq * t)
    if channels > 1:
        samples = np.stack([samples] * channels, axis=1)
    path.parent.mkdir(parents=True, exist_ok=True)
    soundfile.write(path, samples, rate)
    return path


def killed_after(monkeypatch, module, name: str, calls: int):
    """Replace `module.name` by a function that behaves like it for `calls` calls, then raises
    KeyboardInterrupt (a kill mid-run); returns the real function."""
    real, made = getattr(module, name), []

    def dies(*args, **kwargs):
        made.append(1)
        if len(made) > calls:
            raise KeyboardInterrupt("killed")
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, dies)
    return real


@pytest.fixture(scope="session")
def tiny_clap(tmp_path_factory) -> Path:
    """A randomly initialised CLAP small enough for CPU tests, saved with its processor."""
    import json

    import torch
    from transformers import ClapConfig, ClapFeatureExtractor, ClapModel, ClapProcessor, RobertaTokenizerFast

    folder = tmp_path_factory.mktemp("tiny-clap")
    tokens = ["<s>", "<pad>", "</s>", "<unk>", "<mask>", "Ġ"] + list("abcdefghijklmnopqrstuvwxyz,")
    (folder / "vocab.json").write_text(json.dumps({t: i for i, t in enumerate(tokens)}))
    (folder / "merges.txt").write_text("#version: 0.2\n")
    tokenizer = RobertaTokenizerFast(vocab_file=str(folder / "vocab.json"), merges_file=str(folder / "merges.txt"))
    ClapProcessor(feature_extractor=ClapFeatureExtractor(), tokenizer=tokenizer).save_pretrained(folder)
    torch.manual_seed(0)
    config = ClapConfig(
        text_config=dict(vocab_size=len(tokens), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                         intermediate_size=37, max_position_embeddings=130),
        audio_config=dict(depths=[1, 1], num_attention_heads=[2, 2], patch_embeds_hidden_size=16, hidden_size=32),
        projection_dim=16)
    ClapModel(config).save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def splits(tmp_path_factory) -> Path:
    """Test, validation and train splits of one small build (disjoint recordings), built once per module: for
    training, and for scoring what was trained (a module may define its own, smaller)."""
    out = tmp_path_factory.mktemp("three-splits")
    for split in ("test", "validation", "train"):
        generate(small_config(out, split=split, source="synthetic:?variants=30", queries_per_task=4))
    return out


@pytest.fixture(scope="module")
def training_splits(tmp_path_factory) -> Path:
    """Validation and train splits of one small build (disjoint recordings), for the training tests."""
    out = tmp_path_factory.mktemp("training-build")
    for split in ("validation", "train"):
        generate(small_config(out, split=split, source="synthetic:?variants=30", queries_per_task=4))
    return out
