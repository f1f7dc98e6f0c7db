"""Deprecated: `python -m reasonaudio`."""
from reasonaudio_cli import entry

raise SystemExit(entry())
