"""Deprecated alias of `reasonaudio.cli`, kept for one release: `python -m reasonaudio` (and
`torchrun -m reasonaudio`) replaces `python -m reasonaudio_cli`. Removed in 0.3."""
import warnings

from reasonaudio.cli import build_parser, entry, main

warnings.warn("reasonaudio_cli is deprecated and goes in 0.3: use reasonaudio.cli, or `python -m reasonaudio`",
              DeprecationWarning, stacklevel=2)

__all__ = ["build_parser", "entry", "main"]
