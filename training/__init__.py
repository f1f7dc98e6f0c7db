"""Training on a ReasonAudio train split: the contrastive recipe behind `reasonaudio train`.

models/ (one file a model kind, registered in models/__init__.py), loss.py (InfoNCE with the queries'
hard negatives), loop.py (epochs, validation by the metric, best checkpoint, resume), files.py (each file
written whole or not at all; a damaged one named in one line), cli.py. A trained
model folder is scored with `reasonaudio evaluate --model trained:MODEL_DIR`.
"""
