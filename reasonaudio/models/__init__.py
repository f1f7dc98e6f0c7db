"""The models layer: the encoders and detectors, their files and registry, and how one is scored on a split.

Training trains what is here and evaluation scores it; neither imports the other, both import this.
registry.py (the kinds `reasonaudio train --model` builds; `save` / `load` of a model folder), one module a
kind (small.py, detector.py, dual.py, clap.py), pretrained.py (text models resolved offline, a failed load
in one line), files.py (each file written whole or not at all), events.py (events against audio steps,
detection quality), system.py (`System` and what it reads of a split, light: no torch at its top),
scoring.py (a split as scored, `EmbeddingSystem`, the group accuracy),
encoding.py (encoding in chunks, cached and shared), hearing.py (a detector's events judged per query),
distributed.py (devices and process groups). Nothing is imported here: each module is opened on use.
"""
