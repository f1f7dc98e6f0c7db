"""The listening ladder of the README, from scratch on CPU: systems that hear the audio beside those that
read the annotations, on one build.

    python bench/listen_ladder.py [--out DIR] [--queries 100] [--train-queries 400] [--detector-epochs 5]
                                  [--detector-steps 100] [--dual-epochs 15] [--compose-queries 40]
                                  [--held-out-shape chain] [--workers 2] [--source SPEC [--train-source SPEC]]

1. A build at 16 kHz (default: the synthetic bank; test, validation and train from disjoint recordings;
   --train-source for a source that holds test recordings only, such as the ESC-50 subset: validation
   and train from its other parts, `bench/esc50_parts.py`): --queries per task in test, a fifth of that in validation,
   both in groups of 10; --train-queries per task in train, in groups of 3. Validation and train use
   the `natural:seen` templates only, so no trained model reads a held-out template.
2. `reasonaudio train --model detector` (--detector-steps batches of 32 clips an epoch), then `--model
   dual:DETECTOR_DIR` (the dual encoder hears through the trained detector, frozen; every query an epoch).
3. The ladder on the test split: oracle, detector (the hearing ceiling), two-stage (MiniLM on the
   detector's captions, and on the oracle captions), the dual encoder, the recognition
   baseline and the word-order rule held to it (from their `METADATA`), random; per task and per task x depth with bootstrap 95 % intervals, and the
   detector's DCASE metrics on the test split.
4. Compose or memorise: four more test builds of --compose-queries per task, from the
   train split's recordings or from new (test) ones, in the seen templates or the held-out ones; the
   dual encoder and the detector scored on each. Then a held-out shape (--held-out-shape): a second dual
   encoder trained on validation and train splits without it, both dual encoders and the detector scored
   on --compose-queries test queries of that shape alone.
The markdown tables and the wall times are printed.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from esc50_parts import split_seed, split_source                                             # noqa: E402
from reasonaudio.evaluation.systems import BASELINES                                           # noqa: E402
from reasonaudio.generation.tasks import TASKS as TASK_KINDS                                   # noqa: E402

RECOGNITION = next(kind for kind, found in BASELINES.items() if found.provides)   # recognition without reasoning
WORDS = next(kind for kind, found in BASELINES.items() if found.held_to == BASELINES[RECOGNITION].provides)

TASKS = ("negation", "order", "overlap", "duration", "mix")
SEEN, HELD_OUT = "natural:seen", "natural:held-out"


def cell(scores: dict, intervals: dict | None = None) -> str:
    text = f"{100 * scores['accuracy']:.1f}"
    if intervals:
        low, high = intervals["accuracy"]
        text += f" [{100 * low:.1f}, {100 * high:.1f}]"
    return text


def task_table(results: dict[str, dict]) -> str:
    lines = ["| system | " + " | ".join(TASKS) + " | average |", "|---|" + "---|" * (len(TASKS) + 1)]
    for name, result in results.items():
        lines.append(f"| {name} | " + " | ".join(cell(result[t], result["intervals"][t]) for t in TASKS + ("average",))
                     + " |")
    return "\n".join(lines)


def depth_table(results: dict[str, dict]) -> str:
    """One row per task x depth cell, one column per system: accuracy with its 95 % interval."""
    first = next(iter(results.values()))["breakdown"]["cells"]
    lines = ["| task | depth | queries | " + " | ".join(results) + " |", "|---|---|---:|" + "---|" * len(results)]
    for key, where in sorted(first.items(), key=lambda kv: (TASKS.index(kv[1]["where"]["task"]),
                                                            kv[1]["where"]["depth"])):
        row = [where["where"]["task"], str(where["where"]["depth"]), str(where["num_queries"])]
        row += [cell(r["breakdown"]["cells"][key], r["breakdown"]["cells"][key]["intervals"]) for r in results.values()]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, help="keep the builds, models and results here (default: a temporary folder)")
    parser.add_argument("--queries", type=int, default=100, help="queries per task in test (default: 100)")
    parser.add_argument("--train-queries", type=int, default=400, help="queries per task in train (default: 400)")
    parser.add_argument("--detector-epochs", type=int, default=5, help="(default: 5)")
    parser.add_argument("--detector-steps", type=int, default=100,
                        help="the detector's batches an epoch, each epoch another draw of clips (default: 100)")
    parser.add_argument("--dual-epochs", type=int, default=15, help="(default: 15)")
    parser.add_argument("--compose-queries", type=int, default=40,
                        help="queries per task in each compose-or-memorise build (default: 40; 0: none)")
    parser.add_argument("--held-out-shape", default="chain", help="a published shape left out of a second train "
                        "split: the dual encoder trained without it is scored on test queries of that shape alone "
                        "(default: chain; empty: none)")
    parser.add_argument("--workers", type=int, default=2, help="rendering processes (default: 2)")
    parser.add_argument("--source", default="synthetic:", help="sound source (default: synthetic:, whose splits "
                        "hold disjoint recordings)")
    parser.add_argument("--train-source", help="validation and train from this source instead (each of its "
                        "recordings put in that split, seeds 1 and 2), for a source that holds test recordings only: "
                        "its other parts (`bench/esc50_parts.py`) (default: --source, whose recordings carry their "
                        "splits)")
    parser.add_argument("--validation-source", help="validation from this source (its recordings put in that "
                        "split; default: --train-source)")
    args = parser.parse_args()
    shapes_of = {task: {shape.reported_as for shape in TASK_KINDS[task].shapes} for task in TASKS}
    held_out_task = next((task for task, shapes in shapes_of.items() if args.held_out_shape in shapes), None)
    if args.held_out_shape and held_out_task is None:
        parser.error(f"--held-out-shape {args.held_out_shape!r} is no shape of the tasks "
                     f"({', '.join(sorted(set().union(*shapes_of.values())))})")
    validation_seed, train_seed = (split_seed(split, args.train_source) for split in ("validation", "train"))

    from reasonaudio.evaluation.report import profile_lines
    from reasonaudio.evaluation.runner import RunSettings, run
    from reasonaudio.evaluation.systems import EvalData, open_system
    from reasonaudio.generation.pipeline import GenerateConfig, generate
    from reasonaudio.training.loop import TrainConfig, train

    def build(folder: Path, split: str, queries: int, candidates: int, seed: int, style: str = "natural",
              **changes) -> None:
        source = split_source(split, args.source, args.train_source, args.validation_source)
        generate(GenerateConfig(source=source, out=str(folder), split=split, queries_per_task=queries,
                                candidates=candidates, seed=seed, sample_rate=16000, text_style=style,
                                workers=args.workers, progress=False, **changes))

    started = time.perf_counter()
    times = {}
    with tempfile.TemporaryDirectory() as scratch:
        root = args.out or Path(scratch)
        data = root / "build"
        build(data, "test", args.queries, 10, 0)
        build(data, "validation", max(4, args.queries // 5), 10, validation_seed, SEEN)
        build(data, "train", args.train_queries, 3, train_seed, SEEN)
        times["build"] = time.perf_counter() - started

        begun = time.perf_counter()
        detector = train(TrainConfig(data=str(data), out=str(root / "detector"), model="detector",
                                     epochs=args.detector_epochs, max_steps=args.detector_steps, lr=3e-3,
                                     progress=False))
        times["detector training"] = time.perf_counter() - begun
        begun = time.perf_counter()
        dual = train(TrainConfig(data=str(data), out=str(root / "dual"), model=f"dual:{root / 'detector'}",
                                 epochs=args.dual_epochs, lr=3e-3, progress=False))
        times["dual-encoder training"] = time.perf_counter() - begun

        begun = time.perf_counter()
        test = EvalData.load(str(data), "test")
        specs = {"oracle": "oracle", "detector": f"detector:{root / 'detector'}",
                 "two-stage (detector captions)": f"two-stage:all-MiniLM-L6-v2?captions=detector:{root / 'detector'}",
                 "two-stage (oracle captions)": "two-stage:all-MiniLM-L6-v2?captions=oracle",
                 "dual encoder": f"trained:{root / 'dual'}", RECOGNITION: RECOGNITION,
                 WORDS: WORDS, "random": "random"}
        results, systems = {}, {}
        for name, spec in specs.items():
            systems[name] = open_system(spec)
            results[name] = run(systems[name], test, RunSettings(progress=False))
        times["ladder"] = time.perf_counter() - begun

        compose = {}
        if args.compose_queries:
            begun = time.perf_counter()
            for recordings, split in (("train recordings", "train"), ("new recordings", "test")):
                for templates, style in (("seen templates", SEEN), ("held-out templates", HELD_OUT)):
                    folder = root / f"compose-{split}-{style.split(':')[1]}"
                    build(folder, split, args.compose_queries, 10, 10 + len(compose), style)
                    held = EvalData.load(str(folder), split)
                    compose[(recordings, templates)] = {
                        name: run(open_system(specs[name]), held, RunSettings(progress=False))
                        for name in ("dual encoder", "detector")}
            times["compose or memorise"] = time.perf_counter() - begun

        shape = {}
        if args.held_out_shape and args.compose_queries:
            begun = time.perf_counter()
            without = root / f"build-without-{args.held_out_shape}"
            left_out = {"shape_weights": ((args.held_out_shape, 0),)}
            build(without, "validation", max(4, args.queries // 5), 10, validation_seed, SEEN, **left_out)
            build(without, "train", args.train_queries, 3, train_seed, SEEN, **left_out)
            train(TrainConfig(data=str(without), out=str(root / "dual-without"), model=f"dual:{root / 'detector'}",
                              epochs=args.dual_epochs, lr=3e-3, progress=False))
            only = root / f"compose-{args.held_out_shape}"
            build(only, "test", args.compose_queries, 10, 20, SEEN, tasks=(held_out_task,),
                  shape_weights=tuple((other, 0) for other in sorted(shapes_of[held_out_task] - {args.held_out_shape})))
            held = EvalData.load(str(only), "test")
            shape = {name: run(open_system(spec), held, RunSettings(progress=False))
                     for name, spec in (("dual encoder, trained with the shape", specs["dual encoder"]),
                                        ("dual encoder, trained without it", f"trained:{root / 'dual-without'}"),
                                        ("detector", specs["detector"]))}
            times["held-out shape"] = time.perf_counter() - begun

    print(f"build: {args.source} at 16 kHz; test {len(test.queries)} queries in groups of 10"
          + f"; validation and train from other recordings{f' ({args.train_source})' if args.train_source else ''}"
          + "; validation and train in the seen templates")
    print(f"detector: best validation group accuracy {100 * detector['best']['accuracy']:.1f} % at epoch "
          f"{detector['best']['epoch']}, decoding {detector['best']['decoding']}, validation event F1 "
          f"{100 * detector['best']['detection']['event_f1']:.1f} %, segment F1 "
          f"{100 * detector['best']['detection']['segment_f1']:.1f} %")
    heard = systems["detector"].record["detection"]
    print(f"detector on the test split (sed_eval): event-based F1 {100 * heard['event_f1']:.1f} % (collar "
          f"{heard['collar_seconds']} s), segment-based F1 {100 * heard['segment_f1']:.1f} % "
          f"({heard['segment_seconds']} s segments); error rates {heard['event_error_rate']:.2f} / "
          f"{heard['segment_error_rate']:.2f}")
    print(f"dual encoder: best validation group accuracy {100 * dual['best']['accuracy']:.1f} % at epoch "
          f"{dual['best']['epoch']}")
    print("\ngroup accuracy (%), 95 % bootstrap intervals\n")
    print(task_table(results))
    print("\n" + "\n".join(profile_lines(results)))
    print("\nper task and depth\n")
    print(depth_table(results))
    if compose:
        print(f"\ncompose or memorise: average group accuracy (%) on {args.compose_queries} queries per task, 95 % "
              "intervals\n")
        print("| recordings | templates | dual encoder | detector |")
        print("|---|---|---|---|")
        for (recordings, templates), scored in compose.items():
            print(f"| {recordings} | {templates} | " + " | ".join(
                cell(scored[name]["average"], scored[name]["intervals"]["average"]) for name in ("dual encoder", "detector"))
                + " |")
    if shape:
        print(f"\nheld-out shape: {args.compose_queries} `{args.held_out_shape}` queries (new recordings, seen "
              "templates), group accuracy (%), 95 % intervals; the second dual encoder trained on a train split (and "
              "validation) without the shape\n")
        print("| system | accuracy |\n|---|---|")
        for name, result in shape.items():
            print(f"| {name} | {cell(result['average'], result['intervals']['average'])} |")
    print("\n" + ", ".join(f"{step} {seconds:.0f} s" for step, seconds in times.items()))
    print(f"wall time: {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
