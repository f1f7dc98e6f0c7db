"""`python:module.path:factory`: your own encoder, from Python code (no ReasonAudio code to write).

The module is imported from the working directory or the Python path. The factory (called with the
spec's options as keyword strings, and `device=` when it takes one) returns an object with
`encode_text(list[str])` and `encode_audio(list[np.ndarray])`, each returning a (batch x width) array or
tensor of real numbers (complex or bool ones are refused), and a `sampling_rate` attribute (the rate its
audio arrays must have; None: as stored).

Its embeddings are cached only when the object has a `cache_key` string that changes whenever its
vectors would (e.g. the checkpoint's hash): nothing in the spec can tell a retrained checkpoint at the
same path from the old one, so without a key every run encodes afresh.
"""
from __future__ import annotations

import importlib
import inspect
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reasonaudio.models.scoring import EmbeddingSystem


def build(location: str, device: str = "cpu", **options) -> EmbeddingSystem:
    """your own encoder: python:my_package.models:make_model[?option=value] (a factory; cached with a cache_key)"""
    from reasonaudio.models.scoring import EmbeddingSystem

    module_name, _, factory_name = location.partition(":")
    if not module_name or not factory_name:
        raise ValueError(f"python: needs MODULE:FACTORY, e.g. python:my_package.models:make_model; got {location!r}")
    if sys.path[:1] != [os.getcwd()]:   # the user's own module first: never one of the same name installed elsewhere
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        where = "; is it in the working directory or on PYTHONPATH?" if error.name == module_name else ""
        raise ValueError(f"python:{location}: cannot import {module_name!r} ({error}){where}") from None
    factory = getattr(module, factory_name, None)
    if not callable(factory):
        raise ValueError(f"python:{location}: {module_name} has no callable {factory_name!r}")
    parameters = inspect.signature(factory).parameters
    arguments = {**options, **({"device": device} if "device" in parameters else {})}
    try:
        inspect.signature(factory).bind(**arguments)
    except TypeError as error:
        raise ValueError(f"python:{location}: the factory does not take these options: {error}") from None
    model = factory(**arguments)
    missing = [name for name in ("encode_text", "encode_audio", "sampling_rate") if not hasattr(model, name)]
    if missing:
        raise ValueError(f"python:{location}: the factory's {type(model).__name__} lacks {', '.join(missing)} "
                         "(it needs encode_text(list[str]), encode_audio(list[np.ndarray]) and sampling_rate)")
    key = getattr(model, "cache_key", None)
    identity = f"python:{location}?{sorted(options.items())}#{key}" if key else None
    return EmbeddingSystem(f"python:{location}", model.encode_text, model.encode_audio, model.sampling_rate,
                           identity=identity)
