"""What a model or a file gives as vectors is scored by its directions alone, or refused: float64 vectors of
any finite magnitude score as unscaled ones, and complex, bool or non-numeric ones are one line naming
the model and its encoder (a cast would keep a complex vector's real part, with only a warning)."""
import re
import textwrap

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import torch

from reasonaudio.cli import main
from reasonaudio.evaluation import save_embeddings
from reasonaudio.evaluation.runner import RunSettings, run
from reasonaudio.evaluation.systems import EvalData, open_system


@pytest.fixture(scope="module")
def data(small_corpus) -> EvalData:
    return EvalData.load(str(small_corpus))


def _random(data) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.standard_normal((len(data.queries), 16)), rng.standard_normal((len(data.corpus), 16))


def _write(path, data, queries, clips):
    """A file written by hand, keeping the vectors' float64."""
    query_ids, clip_ids = list(data.queries["query_id"]), list(data.corpus["clip_id"])
    if path.suffix == ".npz":
        np.savez(path, query_id=np.asarray(query_ids), query_embedding=queries, clip_id=np.asarray(clip_ids),
                 clip_embedding=clips)
    else:
        pq.write_table(pa.table({"query_id": query_ids + [None] * len(clip_ids),
                                 "clip_id": [None] * len(query_ids) + clip_ids,
                                 "embedding": pa.array(list(queries) + list(clips), pa.list_(pa.float64()))}), path)
    return path


@pytest.mark.parametrize("suffix", [".npz", ".parquet"])
@pytest.mark.parametrize("scale", [1e-50, 1e50])
def test_float64_embeddings_of_any_finite_magnitude_score_as_unscaled(data, tmp_path, suffix, scale):
    """A float32 cast made x 1e-50 zeros (chance, silently) and x 1e50 inf (refused as NaN or inf)."""
    queries, clips = _random(data)
    plain = open_system(f"embeddings:{_write(tmp_path / f'plain{suffix}', data, queries, clips)}")
    expected = plain.similarity(data)
    by_hand = _write(tmp_path / f"scaled{suffix}", data, queries * scale, clips * scale)
    saved = save_embeddings(tmp_path / f"saved{suffix}", data.queries["query_id"], queries * scale,
                            data.corpus["clip_id"], clips * scale)
    for path in (by_hand, saved):
        system = open_system(f"embeddings:{path}")
        assert torch.allclose(system.similarity(data), expected, atol=1e-6)
        quick = RunSettings(bootstrap=0, progress=False)
        assert run(system, data, quick)["average"] == run(plain, data, quick)["average"]


def test_embeddings_that_are_not_finite_directions_are_refused_naming_the_file(data, tmp_path):
    queries, clips = _random(data)
    first = data.corpus["clip_id"][0]
    for name, wrong, message in [("nan", np.where(np.arange(len(clips))[:, None] == 0, np.nan, clips),
                                  f"1 of the clip vectors hold NaN or inf, e.g. those of ['{first}']"),
                                 ("zero", np.where(np.arange(len(clips))[:, None] == 0, 0.0, clips),
                                  f"1 of the clip vectors are all zeros (no direction to score), e.g. those of "
                                  f"['{first}']"),
                                 ("complex", clips * 1j, "the clip vectors are complex128 values, not real numbers")]:
        path = _write(tmp_path / f"{name}.npz", data, queries, wrong)
        with pytest.raises(ValueError, match=f"^{re.escape(f'embeddings:{path}')}.*{re.escape(message)}"):
            open_system(f"embeddings:{path}").similarity(data, progress=False)
        with pytest.raises(ValueError, match=re.escape(message)):
            save_embeddings(tmp_path / f"{name}-saved.npz", data.queries["query_id"], queries, data.corpus["clip_id"],
                            wrong)


ODD_MODEL = """
    import numpy as np

    class Odd:
        sampling_rate = 16000

        def __init__(self, kind, where):
            self.kind, self.where = kind, where

        def _vectors(self, count, encoder):
            vectors = np.random.default_rng(count).standard_normal((count, 8))
            if encoder != self.where:
                return vectors
            return {"complex": vectors * (1 + 1j), "bool": vectors > 0,
                    "object": np.array([None] * count, dtype=object)}[self.kind]

        def encode_text(self, texts):
            return self._vectors(len(texts), "text")

        def encode_audio(self, arrays):
            return self._vectors(len(arrays), "audio")

    def make(kind="complex", where="text"):
        return Odd(kind, where)
"""


@pytest.mark.parametrize("kind, where, returned", [
    ("complex", "text", "encode_text returned complex128 values, not real numbers (.real, .abs() or both parts "
                        "side by side), for batch 0 (queries 0-29) of 30 queries"),
    ("complex", "audio", "encode_audio returned complex128 values, not real numbers"),
    ("bool", "audio", "encode_audio returned bool values, not real numbers (cast the flags to float)"),
    ("object", "text", "encode_text returned an array of object, not vectors"),
])
def test_a_model_returning_complex_or_non_numeric_vectors_is_refused_naming_it(data, tmp_path, monkeypatch, capsys,
                                                                                 kind, where, returned):
    """Complex vectors were scored on their real part (a torch warning, exit 0)."""
    (tmp_path / "odd_model.py").write_text(textwrap.dedent(ODD_MODEL))
    monkeypatch.chdir(tmp_path)
    spec = f"python:odd_model:make?kind={kind}&where={where}"
    with pytest.raises(ValueError, match="^" + re.escape(f"python:odd_model:make's {returned}")):
        open_system(spec).similarity(data, progress=False)
    assert main(["evaluate", "--data", str(data.source), "--model", spec, "--bootstrap", "0", "--no-cache",
                 "--quiet", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and returned.split(" (")[0] in err
