"""`python -m reasonaudio_cli ...` (and `torchrun -m reasonaudio_cli ...`): the `reasonaudio` command."""
from . import entry

raise SystemExit(entry())
