"""Training on a ReasonAudio train split: the contrastive recipe behind `reasonaudio train`.

triplets.py (the train split's items: query text, positive, hard negative; read whole or streamed),
events.py (those items with their frame targets, for the event heads), loss.py (InfoNCE with the queries'
hard negatives), loop.py (epochs, validation by the metric, best checkpoint, resume), cli.py. The models it
trains, their files and their scoring are the models layer's (models/); a trained model folder is scored with
`reasonaudio evaluate --model trained:MODEL_DIR`.
"""
