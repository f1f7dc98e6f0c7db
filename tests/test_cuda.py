"""On a CUDA machine, the GPU gives what the CPU gives: the metric reduces CUDA tensors (float32 and bfloat16),
each model adapter scores a build, `train --device cuda` trains every kind whose weights travel (small,
detector, clap) to a folder that scores on the CPU as validated, and a launcher's process group on one GPU
(nccl) scores as one process. Skipped where torch sees no GPU (CI has none): run `pytest tests/test_cuda.py`
on a machine with one. The dual encoder is not here: its frozen MiniLM comes from a package this check's
machine does not hold."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

from reasonaudio.evaluation.runner import RunSettings, run
from reasonaudio.evaluation.systems import EvalData, open_system
from reasonaudio.cli import main
from reasonaudio_metric.functional import score

from .metric.test_metric import corpus_case, flat, group_case

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device: these check the GPU path")

# Encoders on the GPU round differently from the CPU (TF32 and fused kernels): vectors agree to about 1e-3,
# so candidates' scores are compared with that tolerance, and rankings may differ only where two
# candidates' scores sit closer than it.
SCORES = 2e-3


def _train(splits, out, model: str, device: str) -> dict:
    assert main(["train", "--data", str(splits), "--out", str(out), "--model", model, "--epochs", "1",
                 "--batch-size", "4", "--max-steps", "2", "--device", device, "--quiet"]) == 0
    return json.loads((out / "reasonaudio_model.json").read_text())


def _candidate_scores(spec: str, data: EvalData, device: str, mode: str = "group") -> tuple[np.ndarray, dict]:
    result = run(open_system(spec, device), data, RunSettings(mode, device, batch_size=4, bootstrap=0, progress=False),
                 per_query=True)
    return np.array(result["per_query"]["scores"], dtype=np.float64), result


def _agree(spec: str, data: EvalData, mode: str = "group") -> None:
    """The spec scores every candidate on the GPU as on the CPU (in corpus mode, read off the whole matrix),
    and the group accuracy differs only by near ties."""
    on_cpu, cpu_result = _candidate_scores(spec, data, "cpu", mode)
    on_gpu, gpu_result = _candidate_scores(spec, data, "cuda", mode)
    scale = max(np.abs(on_cpu).max(), 1e-9)
    assert np.abs(on_gpu - on_cpu).max() <= SCORES * scale
    if mode == "group":
        near_ties = (np.diff(np.sort(on_cpu, axis=1), axis=1) <= 2 * SCORES * scale).any(axis=1).sum()
        assert abs(gpu_result["average"]["accuracy"] - cpu_result["average"]["accuracy"]) <= near_ties / len(on_cpu) + 1e-12


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_the_metric_reduces_cuda_tensors_to_the_cpu_results(dtype):
    similarity, queries, clip_ids, qrels = corpus_case(2)
    for_cpu = torch.from_numpy(similarity).to(dtype)
    on_cpu = score(for_cpu, queries, clip_ids, qrels, bootstrap=0)
    assert flat(score(for_cpu.cuda(), queries, clip_ids, qrels, bootstrap=0)) == pytest.approx(flat(on_cpu))
    similarity, queries = group_case(3)
    for_cpu = torch.from_numpy(similarity).to(dtype)
    assert flat(score(for_cpu.cuda(), queries, bootstrap=0)) == pytest.approx(flat(score(for_cpu, queries, bootstrap=0)))


def test_the_clap_adapter_scores_on_the_gpu_as_on_the_cpu(splits, tiny_clap):
    data = EvalData.load(str(splits))
    _agree(f"clap:{tiny_clap}", data)
    _agree(f"clap:{tiny_clap}", data, mode="corpus")


@pytest.mark.parametrize("kind", ["small", "detector", "clap"])
def test_a_model_trained_on_the_gpu_scores_on_the_cpu_as_validated(splits, tiny_clap, tmp_path, kind):
    model = f"clap:{tiny_clap}" if kind == "clap" else kind
    record = _train(splits, tmp_path / kind, model, "cuda")
    assert record["kind"] == kind
    spec = f"{'detector' if kind == 'detector' else 'trained'}:{tmp_path / kind}"
    validation = EvalData.load(str(splits), "validation")
    on_cpu, result = _candidate_scores(spec, validation, "cpu")
    near_ties = (np.diff(np.sort(on_cpu, axis=1), axis=1) <= SCORES * max(np.abs(on_cpu).max(), 1e-9)).any(axis=1).sum()
    assert abs(result["average"]["accuracy"] - record["best"]["accuracy"]) <= near_ties / len(on_cpu) + 1e-12
    _agree(spec, EvalData.load(str(splits)))


def test_evaluate_on_the_gpu_names_it_and_a_one_gpu_launcher_scores_as_one_process(splits, tiny_clap, tmp_path):
    arguments = ["evaluate", "--data", str(splits), "--model", f"clap:{tiny_clap}", "--device", "cuda",
                 "--batch-size", "4", "--bootstrap", "0", "--no-cache", "--quiet"]
    assert main([*arguments, "--out", str(tmp_path / "one")]) == 0
    subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "1", "--master-port", "29541",
                    "-m", "reasonaudio", *arguments, "--out", str(tmp_path / "launched")], check=True, timeout=600,
                   env={**os.environ, "OMP_NUM_THREADS": "1"})
    one, launched = (json.loads((tmp_path / name / "results.json").read_text()) for name in ("one", "launched"))
    assert one["device"]["hardware"] == torch.cuda.get_device_name(0) != "cpu"
    assert launched["device"]["name"].startswith("cuda")
    assert flat(launched["metrics"]) == pytest.approx(flat(one["metrics"]), abs=1e-6)
