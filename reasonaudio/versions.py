"""The two versions a score is cited with.

The package version (`__version__`) names the code. The benchmark version (`BENCHMARK_VERSION`) names what a
score was measured on: it changes whenever the queries, the relevance or the audio of the reference builds change,
major when scores are no longer comparable. `REFERENCE_FINGERPRINTS` are those builds' plan fingerprints at this
benchmark version (`bench/fingerprints.py` prints them; a test fails when one changes and the version does not).
This module imports nothing, so every layer can stamp the versions into what it writes."""

__version__ = "0.2.0"
BENCHMARK_VERSION = "1.0.0"

# reference build -> its plan fingerprint at BENCHMARK_VERSION (the test split, 16 kHz; bench/fingerprints.py)
REFERENCE_FINGERPRINTS = {
    "synthetic": "b49f3274b51a2c3a",     # the built-in bank, default settings
    "paper": "622f073b5754bce9",         # --profile paper on the built-in bank
    "esc50-subset": "1cdd634566f20993",  # ESC-50 fold 4, four clips a class, as esc50:ESC-50?as_split=test
    "natural-standin": "4ee11c321578ba3d",   # reasonaudio standin st2 --recordings 300 --seed 2, then seed 2
}
