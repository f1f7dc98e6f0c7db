"""ReasonAudio: a benchmark for reasoning-intensive text-to-audio retrieval (arXiv 2605.03361).

The public API, each name imported on first use (so `import reasonaudio` stays light):

* `load_reasonaudio`, `stream_reasonaudio`, `collate_reasonaudio`: read a build (a folder or a Hub id);
* `score`: score a similarity matrix (the metric's functional core; `METRIC_PATH` is the `evaluate` module's
  folder, for `evaluate.load(reasonaudio.METRIC_PATH)`); `with_hard_negative_kinds`: the queries with what each
  hard negative breaks, from which the result adds the reasoning profile;
* `evaluate_encoders`: score any model given as two encoders;
* `ContrastiveTriplets`, `StreamingTriplets`: training items (query text, positive, hard negative);
* `GenerateConfig`, `generate`, `validate`: build a benchmark split and check a built folder;
* `__version__` (the package) and `BENCHMARK_VERSION` (what a score was measured on: cite both).

The packages behind them: `reasonaudio.generation` (the generator), `reasonaudio.models`,
`reasonaudio.training`, `reasonaudio.evaluation`, `reasonaudio.cli` (the `reasonaudio` command),
`reasonaudio_dataset` and `reasonaudio_metric`.
"""
from importlib import import_module

from .versions import BENCHMARK_VERSION, __version__

_WHERE = {
    "load_reasonaudio": "reasonaudio_dataset.loading",
    "stream_reasonaudio": "reasonaudio_dataset.streaming",
    "collate_reasonaudio": "reasonaudio_dataset.streaming",
    "score": "reasonaudio_metric.functional",
    "with_hard_negative_kinds": "reasonaudio.evaluation.diagnose",
    "evaluate_encoders": "reasonaudio.evaluation.runner",
    "ContrastiveTriplets": "reasonaudio.training.triplets",
    "StreamingTriplets": "reasonaudio.training.triplets",
    "GenerateConfig": "reasonaudio.generation.config",
    "generate": "reasonaudio.generation.pipeline",
    "validate": "reasonaudio.generation.validate",
}
__all__ = ["BENCHMARK_VERSION", "METRIC_PATH", "__version__", *_WHERE]


def __getattr__(name: str):
    if name == "METRIC_PATH":
        from importlib.util import find_spec

        return find_spec("reasonaudio_metric").submodule_search_locations[0]
    if name not in _WHERE:
        raise AttributeError(f"module 'reasonaudio' has no attribute {name!r}")
    return getattr(import_module(_WHERE[name]), name)


def __dir__() -> list[str]:
    return sorted(__all__)
