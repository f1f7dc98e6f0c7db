"""`python -m reasonaudio ...` (and `torchrun -m reasonaudio ...`): the `reasonaudio` command."""
from reasonaudio.cli import entry

raise SystemExit(entry())
