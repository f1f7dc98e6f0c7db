"""The two versions a score is cited with.

The package version (`__version__`) names the code. The benchmark version (`BENCHMARK_VERSION`) names what a
score was measured on: it changes whenever the queries, the relevance or the audio of the reference builds change,
major when scores are no longer comparable. `REFERENCE_FINGERPRINTS` are those builds' plan fingerprints at this
benchmark version (`bench/fingerprints.py` prints them; a test fails when one changes and the version does not).
This module imports nothing, so every layer can stamp the versions into what it writes."""

__version__ = "0.3.0"
BENCHMARK_VERSION = "1.1.0"

# reference build -> its plan fingerprint at BENCHMARK_VERSION (the test split, 16 kHz; bench/fingerprints.py)
REFERENCE_FINGERPRINTS = {
    "synthetic": "962aeb390459ee50",     # the built-in bank, default settings
    "paper": "1cdc0a4dabcfb079",         # --profile paper on the built-in bank
    "esc50-subset": "4edf90664e1e16c9",  # ESC-50 fold 4, four clips a class, as esc50:ESC-50?as_split=test
    "natural-standin": "d2b681a258006c82",   # reasonaudio standin st2 --recordings 300 --seed 2, then seed 2
    "count-synthetic": "b6df3853816fd762",   # --tasks count on the built-in bank, seed 4
    "count-esc50": "6c6ee039bf8f2867",       # --tasks count on the ESC-50 subset (as above), seed 2
}
