"""What the text side learns from the train split when hearing is perfect:

    python bench/text_probe.py --data BUILD [--epochs 8] [--segments 5]

The `small` model's text encoder (its word vocabulary, transformer and projection) is trained with the
recipe's loss (InfoNCE both ways, each query's hard negative at weight 1) against *annotation timelines*
instead of an audio encoder: a clip becomes, for each of --segments equal stretches and each sound
class, the fraction of the stretch that the class's sounds cover, straight from the clip's `events`. No
audio is read, so whatever the probe misses is the text side's: how much of each task a text encoder
learns from the train split's queries alone. A hand-set text vector shows what the timeline can express:
+1 on each wanted sound, -1 on each excluded one, and for "X before Y" a ramp falling over time on X
and rising on Y (their dot product grows with the time from X to Y); tasks with other relations get
no hand-set figure. Scored on the test split by the metric (group accuracy per task), and on the train
split's groups (how well the encoder fits what it saw).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TASKS = ("negation", "order", "overlap", "duration", "mix")


def timelines(corpus, labels: list[str], segments: int):
    """(clips x segments*labels): the share of each stretch of each clip that each class covers."""
    import torch

    column = {label: i for i, label in enumerate(labels)}
    rows = torch.zeros(len(corpus), segments, len(labels))
    for row, (events, seconds) in enumerate(zip(corpus["events"], corpus["duration"])):
        edges = torch.linspace(0, seconds, segments + 1)
        for event in events:
            if event["label"] in column:
                covered = (torch.minimum(edges[1:], torch.tensor(event["offset"])) -
                           torch.maximum(edges[:-1], torch.tensor(event["onset"]))).clamp(min=0)
                rows[row, :, column[event["label"]]] += covered / (seconds / segments)
    return rows.clamp(max=1).flatten(1)     # a class's overlapping sounds cover a stretch once


def hand_set(constraint: str, labels: list[str], segments: int):
    """The text vector a reader of the constraint would write, or None for relations it has no rule for."""
    import torch

    column, ramp = {label: i for i, label in enumerate(labels)}, torch.linspace(-1, 1, segments)
    vector = torch.zeros(segments, len(labels))
    for atom in json.loads(constraint)["all"]:
        relation, args = atom["relation"], atom["args"]
        if any(a not in column for a in args):   # a class the train split never plays: nothing to weigh
            continue
        if relation == "present":
            vector[:, column[args[0]]] += 1
        elif relation == "absent":
            vector[:, column[args[0]]] -= 1
        elif relation == "before":
            vector[:, column[args[0]]] += 1 - ramp
            vector[:, column[args[1]]] += 1 + ramp
        else:
            return None
    return vector.flatten()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, help="a build with train and test splits (e.g. bench/train_reference.py --out DIR: DIR/build)")
    parser.add_argument("--epochs", type=int, default=8, help="(default: 8)")
    parser.add_argument("--segments", type=int, default=5, help="stretches per clip, as the small model's timeline (default: 5)")
    parser.add_argument("--batch-size", type=int, default=32, help="(default: 32)")
    parser.add_argument("--lr", type=float, default=1e-3, help="(default: 0.001)")
    parser.add_argument("--seed", type=int, default=0, help="(default: 0)")
    args = parser.parse_args()

    import numpy as np
    import torch
    import torch.nn.functional as F
    from reasonaudio_dataset.loading import load_table

    from reasonaudio_metric.functional import score
    from reasonaudio.training.loss import info_nce
    from reasonaudio.models.small import SmallAudioText

    def split(name):
        queries = load_table(args.data, "queries", name)
        corpus = load_table(args.data, "corpus", name).select_columns(["clip_id", "events", "duration"])
        return queries, corpus

    started = time.perf_counter()
    train_queries, train_corpus = split("train")
    labels = sorted({event["label"] for events in train_corpus["events"] for event in events})
    torch.manual_seed(args.seed)
    model = SmallAudioText.create(train_queries["text"], segments=args.segments, segment_width=len(labels))
    train_rows = {clip: row for clip, row in zip(train_corpus["clip_id"], timelines(train_corpus, labels, args.segments))}
    logit_scale = torch.nn.Parameter(torch.tensor(math.log(1 / 0.07)))
    text_parameters = [p for name, p in model.named_parameters() if name.startswith(("embedding", "text_"))]
    optimizer = torch.optim.AdamW([*text_parameters, logit_scale], lr=args.lr, weight_decay=0.01)
    rng = np.random.default_rng(args.seed)
    texts, positives = list(train_queries["text"]), list(train_queries["positive"])
    hard = list(train_queries["hard_negatives"])

    def scored(queries, corpus, rows, vectors=None):
        """Group accuracy per task (the metric's) of text `vectors` (default: the encoder's) on `queries`,
        whose candidates' timelines are `rows`."""
        if vectors is None:
            model.eval()
            with torch.no_grad():
                vectors = model.encode_text(list(queries["text"]))
            model.train()
        column = {clip: j for j, clip in enumerate(corpus["clip_id"])}
        index = torch.tensor([[column[clip] for clip in group] for group in queries["candidates"]])
        groups = torch.einsum("qkd,qd->qk", F.normalize(rows, dim=-1)[index], F.normalize(vectors, dim=-1))
        result = score(groups, queries, bootstrap=0)
        return {task: 100 * result[task]["accuracy"] for task in TASKS if task in result}

    for epoch in range(args.epochs):
        order, losses = rng.permutation(len(texts)), []
        for start in range(0, len(order), args.batch_size):
            batch = order[start:start + args.batch_size]
            negatives = [hard[i][rng.integers(len(hard[i]))] for i in batch]
            loss = info_nce(model.encode_text([texts[i] for i in batch]),
                            torch.stack([train_rows[positives[i]] for i in batch]),
                            torch.stack([train_rows[clip] for clip in negatives]), 1 / logit_scale.exp().clamp(max=100))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        print(f"epoch {epoch + 1}/{args.epochs}: loss {np.mean(losses):.3f}", flush=True)

    test_queries, test_corpus = split("test")
    test_rows = timelines(test_corpus, labels, args.segments)
    learned = scored(test_queries, test_corpus, test_rows)
    fit = scored(train_queries, train_corpus, torch.stack([train_rows[c] for c in train_corpus["clip_id"]]))
    vectors = [hand_set(constraint, labels, args.segments) for constraint in test_queries["constraint"]]
    ruled = [task for task in TASKS if all(v is not None for v, t in zip(vectors, test_queries["task"]) if t == task)]
    kept = [i for i, task in enumerate(test_queries["task"]) if task in ruled]
    by_hand = scored(test_queries.select(kept), test_corpus, test_rows, torch.stack([vectors[i] for i in kept]))
    print(f"\ntext side on annotation timelines ({args.segments} stretches), group accuracy (%), "
          f"{len(train_queries)} train queries, {args.epochs} epochs, {time.perf_counter() - started:.0f} s\n")
    print("| text vector | " + " | ".join(TASKS) + " |")
    print("|---|" + "---|" * len(TASKS))
    for name, row in (("hand-set (test)", by_hand), ("learned, test", learned), ("learned, train (fit)", fit)):
        print(f"| {name} | " + " | ".join(f"{row[t]:.1f}" if t in row else "—" for t in TASKS) + " |")


if __name__ == "__main__":
    main()
