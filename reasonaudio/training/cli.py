"""`reasonaudio train`: the contrastive recipe on a build's train split."""
from __future__ import annotations

import argparse

from .config import TrainConfig


def add_commands(sub) -> dict:
    d = TrainConfig(data="", out="")
    train = sub.add_parser(
        "train", formatter_class=argparse.RawDescriptionHelpFormatter,
        help="train a retrieval model on a build's train split (InfoNCE with the queries' hard negatives)",
        description="Train on the train split's queries with InfoNCE: each text against every positive clip of the "
                    "batch, plus (with --hard-negatives) every query's minimal-pair negative in the softmax, weight "
                    "1. The learning rate warms up over the first tenth of the run, then falls on a cosine to zero. "
                    "After every epoch the model's group accuracy on the "
                    "validation split is measured with the ReasonAudio metric; the best epoch's model is kept in "
                    "--out. Killed, the same command resumes from the last finished epoch and (on CPU) ends where an "
                    "uninterrupted run would. A step whose loss or gradient is not finite stops the run before it "
                    "is taken (lower --lr or --event-weight); what was saved is kept. Score the result with: "
                    "reasonaudio evaluate --model trained:OUT (a detector: --model detector:OUT)",
        epilog="models:\n  small                 a compact log-mel + dilated-conv audio encoder with a timeline embedding\n"
               "                        and a word-level text transformer (vocabulary from the train split),\n"
               "                        trainable on CPU in minutes\n"
               "  detector              a sound-event detector on the small model's audio trunk, trained on the\n"
               "                        train split's strong labels (events); its decoding is chosen on the\n"
               "                        validation split; DCASE event- and segment-based F1 in training.json\n"
               "  clap:PATH_OR_ID       fine-tune a transformers ClapModel (e.g. clap:laion/clap-htsat-unfused)")
    train.add_argument("--data", required=True,
                       help="a generated folder (or Hub id) with train and validation splits "
                            "(reasonaudio generate --split train / --split validation)")
    train.add_argument("--out", required=True,
                       help="new folder for the model, not inside --data (or the folder of a run to resume)")
    train.add_argument("--model", default=d.model, help="small, detector or clap:PATH_OR_ID (default: %(default)s)")
    train.add_argument("--hard-negatives", action=argparse.BooleanOptionalAction, default=d.hard_negatives,
                       help="put each query's minimal-pair negative in the softmax (default: on)")
    train.add_argument("--epochs", type=int, default=d.epochs, help="passes over the train split (default: %(default)s)")
    train.add_argument("--batch-size", type=int, default=d.batch_size,
                       help="queries per step, at least 2: the global batch (under torchrun --nproc-per-node N each "
                            "process takes batch-size / N of it) (default: %(default)s)")
    train.add_argument("--lr", type=float, default=d.lr, help="AdamW's peak learning rate, reached after the warm-up (default: %(default)s)")
    train.add_argument("--device", default=d.device, help="cpu, cuda, cuda:1, ... (default: %(default)s)")
    train.add_argument("--seed", type=int, default=d.seed,
                       help="seed of the initialisation, shuffles and hard-negative draws (default: %(default)s)")
    train.add_argument("--augment", default=d.augment, metavar="PRESET_OR_FILE",
                       help="acoustic condition drawn per item, alike for positive and hard negative: a preset "
                            "(noisy, reverberant, telephone, wild) or a YAML file (default: none)")
    train.add_argument("--event-weight", type=float, default=None,
                       help="weight of the small model's event-head loss: which sound classes play in each 80 ms, "
                            "from the train split's event annotations (default: 1 for small, 0 for clap, which has "
                            "no event head)")
    train.add_argument("--workers", type=int, default=d.workers,
                       help="DataLoader worker processes (default: %(default)s: load in the training process)")
    train.add_argument("--max-steps", type=int, default=d.max_steps,
                       help="stop each epoch after this many steps, for a quick check (default: the whole split)")
    train.add_argument("--quiet", action="store_true", help="no progress bars (default: off)")
    return {"train": run_train}


def run_train(args) -> int:
    import contextlib
    import os
    import sys

    from reasonaudio.models.kinds import check_model_spec
    from reasonaudio_dataset.folders import check_data, check_results_folder, held

    check_model_spec(args.model)                      # the slips a user makes most, before torch and datasets load
    check_data(args.data, ("train", "validation"))
    check_results_folder(args.out, args.data)         # before the lock creates it
    if not args.quiet and int(os.environ.get("RANK", "0")) == 0:
        print(f"train: {args.model} on the train split of {args.data}, {args.epochs} epochs, scored on its validation "
              f"split after each; the best into {args.out}", file=sys.stderr, flush=True)

    # torch, imported on use: --help stays fast
    from reasonaudio.models.distributed import close_distributed, distributed

    from .loop import train

    # one run at a time in --out: a second is refused at once (under torchrun the first process holds it for all)
    hold = held(args.out) if int(os.environ.get("RANK", "0")) == 0 else contextlib.nullcontext()
    with hold:
        try:       # under torchrun: one process per rank, the global batch shared among them (training/loop.py)
            record = train(TrainConfig(data=args.data, out=args.out, model=args.model,
                                       hard_negatives=args.hard_negatives, epochs=args.epochs,
                                       batch_size=args.batch_size, lr=args.lr, device=args.device, seed=args.seed,
                                       augment=args.augment, event_weight=args.event_weight, workers=args.workers,
                                       max_steps=args.max_steps, progress=not args.quiet))
            rank = distributed()[0]
        finally:
            close_distributed()
    if rank:
        return 0
    best, kind = record["best"], "detector" if args.model == "detector" else "trained"
    print(f"best validation group accuracy {100 * best['accuracy']:.1f} % at epoch {best['epoch']}; model in "
          f"{args.out}; score it: reasonaudio evaluate --data {args.data} --model {kind}:{args.out} --out RUN_DIR")
    return 0
