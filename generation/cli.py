"""The generation stage's subcommands of `reasonaudio`: generate, merge, validate, publish, standin."""
from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from .acoustics import presets
from .config import GenerateConfig
from .profiles import PROFILES
from .sources import HELP as SOURCES_HELP
from .tasks import TASKS
from .templates import HOLDOUTS, STYLES


def _generate_parser(sub) -> None:
    d = GenerateConfig()
    p = sub.add_parser("generate", formatter_class=argparse.RawDescriptionHelpFormatter,
                       help="synthesize a ReasonAudio split (plan, check, render, write, card)",
                       description="Synthesize one split: atomic sounds from --source, five task planners, every "
                                   "candidate verified by the relevance function, clips rendered to FLAC, written as "
                                   "Parquet with a dataset card. Re-running the same command resumes; the output is "
                                   "identical for any --workers. A strong-label source (strong:...) makes a natural "
                                   "build instead: its recordings as they are, queries over their own annotations.",
                       epilog=f"sources (--source KIND:LOCATION[?option=value&...]):\n{SOURCES_HELP}")
    p.add_argument("--profile", choices=list(PROFILES),
                   help="a named preset of some options below (marked 'or the profile's'); an option you give wins: "
                        + "; ".join(f"`{name}`: {profile.description}" for name, profile in PROFILES.items())
                        + " (default: none)")
    p.add_argument("--source", default=d.source, help="where the atomic sounds come from, or the strongly-labelled recordings of a natural build "
                   "(default: %(default)s)")
    p.add_argument("--out", required=True, help="output folder (one folder can hold several splits)")
    p.add_argument("--split", default=d.split, choices=("train", "validation", "test"),
                   help="which split; each draws on disjoint recordings (default: %(default)s)")
    p.add_argument("--queries-per-task", type=int, default=d.queries_per_task, help="(default: %(default)s)")
    p.add_argument("--candidates", type=int, default=d.candidates,
                   help="clips per query: 1 positive + negatives (default: %(default)s)")
    p.add_argument("--atomic-sounds", type=int, default=d.atomic_sounds,
                   help="recordings drawn, balanced over classes (default: %(default)s)")
    p.add_argument("--clip-seconds", type=float, default=d.clip_seconds, help="(default: %(default)s)")
    p.add_argument("--sample-rate", type=int, default=d.sample_rate, help="(default: %(default)s)")
    p.add_argument("--seed", type=int, default=d.seed, help="(default: %(default)s)")
    p.add_argument("--tasks", nargs="+", default=list(d.tasks), choices=list(TASKS),
                   help="the paper's five by default; count (how many separate times a sound is heard) is opt-in: "
                        "--tasks count, or added to the five (default: %(default)s)")
    p.add_argument("--events-per-clip", type=count_range, default=d.events_per_clip, metavar="MIN-MAX",
                   help="sounds per clip, drawn per query among the counts its shape fits and equal within its "
                        "candidates; a shape that fits none is left out (overlap-before needs 5; docs/design.md "
                        "lists each shape's counts) (default: %s)" % "-".join(map(str, d.events_per_clip)))
    p.add_argument("--depth", type=count_range, default=d.depth, metavar="MIN-MAX",
                   help="atoms per query (1: 'A, then B'; 3: 'B after A, C at the same time as B, and no trace "
                        "of D anywhere in the clip'): only "
                        "query shapes within it are drawn (default: all; shapes per task in docs/design.md)")
    p.add_argument("--text-style", default=d.text_style,
                   choices=[*STYLES, *(f"{style}:{holdout}" for style in STYLES for holdout in HOLDOUTS)],
                   help="query templates: one module in generation/templates/ each; STYLE:seen and STYLE:held-out "
                        "split every shape's templates in two (every third, counting back from the last, held out), "
                        "to train on some sentences and test on others (default: %(default)s)")
    p.add_argument("--acoustics", type=lambda text: tuple(filter(None, text.split(","))), default=d.acoustics,
                   metavar="NAME_OR_FILE[,...]",
                   help="acoustic condition applied after the mix, one draw per candidate group: a preset (%s), "
                        "`all` (every preset), or your YAML file of audiomentations transforms (same schema as the "
                        "presets in generation/acoustics/presets/; transforms that move, stretch, mask or crop audio "
                        "are refused by name). One condition fills `corpus`; several make a robustness build: the "
                        "clean mix in `corpus`, each other condition in `corpus_<name>`, queries and qrels shared "
                        "(default: clean)" % ", ".join(presets()))
    p.add_argument("--workers", type=int, default=d.workers, help="rendering processes (default: %(default)s)")
    p.add_argument("--num-shards", type=int, default=d.num_shards,
                   help="split the rendering into this many independent jobs (default: %(default)s)")
    p.add_argument("--shard-index", type=int, default=d.shard_index, help="which job this is (default: %(default)s)")
    p.add_argument("--executor", default=d.executor, metavar="local|ray[:ADDRESS]",
                   help="where the corpus files are rendered: `local` (this machine, --workers processes), or a Ray "
                        "cluster: `ray` starts a local one of --workers CPUs (or joins the one RAY_ADDRESS names), "
                        "`ray:ADDRESS` joins that one (e.g. ray:auto). Same files as a local run; the plan and its "
                        "sounds travel to the nodes; needs pip install '.[ray]' (default: %(default)s)")
    p.add_argument("--skip-bad-sources", action="store_true",
                   help="leave out unreadable/empty/silent/NaN/unlabelled recordings (the card lists them) (default: off: "
                        "a bad recording stops the run, naming it)")
    add_force(p)
    p.add_argument("--quiet", action="store_true", help="no progress bars (default: off)")
    profiled = {option for profile in PROFILES.values() for option in profile.options}
    for action in p._actions:            # None: not given, so that a profile's value can stand in
        if action.dest in profiled:
            action.help = action.help.replace("%(default)s", f"{action.default}, or the profile's")
            action.default = None


def count_range(text: str) -> tuple[int, int]:
    """'2-5' -> (2, 5); '3' -> (3, 3)."""
    low, _, high = text.partition("-")
    try:
        return int(low), int(high or low)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected MIN-MAX (e.g. 2-5) or one number, got {text!r}") from None


def add_force(parser) -> None:
    parser.add_argument("--force", action="store_true",
                        help="write into an --out that also holds unrelated files (left untouched, never published); "
                             "a README.md that is not a ReasonAudio card is never overwritten, even so (default: off: refuse "
                             "such a folder)")


def print_summary(record: dict, split: str, out: str) -> None:
    """What a generated split holds, one example query per task."""
    counts = record["counts"]
    sounds = "recordings" if "natural" in record else "atomic sounds"      # a natural build's sources: recordings
    print(f"\n{split}: {counts['queries']} queries, {counts['clips']} clips, {counts['atomic_sounds']} {sounds} "
          f"of {counts['classes']} classes -> {out}")
    print(f"{'task':10} {'queries':>7}  example")
    for task, n in counts["queries_per_task"].items():
        example = record["examples"].get(task, {"query": "(no query: the source states none of its shapes, see the "
                                                         "log above)"})
        print(f"{task:10} {n:7d}  {example['query']}")


def generate_config(args):
    """generate's settings: the options given, over the profile's (`--profile`), over the defaults."""
    options = dict(
        source=args.source, out=args.out, split=args.split, queries_per_task=args.queries_per_task,
        candidates=args.candidates, atomic_sounds=args.atomic_sounds, clip_seconds=args.clip_seconds,
        sample_rate=args.sample_rate, seed=args.seed, tasks=tuple(args.tasks), events_per_clip=args.events_per_clip,
        depth=args.depth, text_style=args.text_style, acoustics=args.acoustics, skip_bad_sources=args.skip_bad_sources,
        force=args.force, workers=args.workers, num_shards=args.num_shards, shard_index=args.shard_index, executor=args.executor,
        progress=not args.quiet)
    return GenerateConfig.from_profile(args.profile, **given(options)) if args.profile else GenerateConfig(**given(options))


def given(options: dict) -> dict:
    """The options given on the command line: a profile's options are None until given (see the parser)."""
    return {name: value for name, value in options.items() if value is not None}


def _run_generate(args) -> int:
    config = generate_config(args)
    config.check_same_corpus()      # before the pipeline (and datasets) load: the slip is refused at once

    from .pipeline import generate   # datasets and pyarrow, imported on use: --help stays fast

    record = generate(config)
    print_summary(record, args.split, args.out)
    if record["skipped_sources"]:
        print(f"skipped {len(record['skipped_sources'])} source recording(s) (unusable, or inaudible under an acoustic "
              "condition); the card lists each with the reason")
    if not record["complete"]:
        print(f"job {args.shard_index} of {args.num_shards} done; when all are, run: reasonaudio merge {args.out} ...")
    return 0


def _run_merge(args) -> int:
    # datasets and pyarrow, imported on use: --help stays fast
    from reasonaudio_dataset.schema import check_data_file

    from reasonaudio_dataset.splits import RECORDS

    from .folder import BuildFolder

    folder = BuildFolder(args.out)
    folder.check(args.force)
    out = folder.path
    for part in map(Path, args.parts):
        for plan_file in sorted((part / RECORDS).glob("*.plan.json")):
            record = json.loads(plan_file.read_text())
            mine = out / RECORDS / plan_file.name
            if mine.is_file() and json.loads(mine.read_text())["fingerprint"] != record["fingerprint"]:
                raise ValueError(f"{part} was generated with other parameters than {out}; not merging")
            for relative in record["files"]:
                check_data_file(relative, str(plan_file))
            for relative in record["files"]:
                theirs = BuildFolder(part).locate(relative, record["fingerprint"])
                if theirs is not None and folder.locate(relative, record["fingerprint"]) is None:
                    folder.stage_copy(theirs, relative)
            mine.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(plan_file, mine)
    splits = sorted(p.name.removesuffix(".plan.json") for p in (out / RECORDS).glob("*.plan.json"))
    if not splits:
        raise ValueError(f"nothing to merge: no generated split in {out} or {args.parts}")
    incomplete = [split for split in splits if not folder.finalize(split)]
    if incomplete:
        print(f"reasonaudio merge: files still missing for split(s) {incomplete}; merge the other jobs' folders",
              file=sys.stderr)
        return 1
    print(f"merged {splits} into {out}")
    return 0


def _run_validate(args) -> int:
    if not args.quiet:
        print(f"validate: {args.dir}: every record, table and the card re-derived"
              + ("" if args.quick else ", then every clip decoded and re-rendered (--quick skips it)"),
              file=sys.stderr, flush=True)

    from .validate import validate   # datasets and pyarrow, imported on use: --help stays fast

    problems = validate(args.dir, quick=args.quick, workers=args.workers, progress=not args.quiet)
    if problems:
        print(f"{args.dir}: {len(problems)} problem(s)", file=sys.stderr)
        for line in problems:
            print(f"  - {line}", file=sys.stderr)
        return 1
    print(f"{args.dir}: valid")
    return 0


def _run_publish(args) -> int:
    from reasonaudio_dataset.certificate import read_certificate

    from .publish import UNCERTIFIED, NotPublishable, check_repo_id, left_behind, publish   # huggingface_hub: on use

    check_repo_id(args.repo_id)           # a slip is refused alone; the warning is for a publish that can go on
    if not args.require_certificate and read_certificate(Path(args.dir)) is None:   # said before anything is sent
        print(f"warning: {args.dir} {UNCERTIFIED.format(folder=args.dir)}", file=sys.stderr)
    try:
        files = publish(args.dir, args.repo_id, private=args.private, revision=args.revision, dry_run=args.dry_run,
                        require_certificate=args.require_certificate)
    except NotPublishable as error:
        print(f"reasonaudio publish: {error}", file=sys.stderr)
        return 1
    for path, size in files:
        print(f"{size:>14,d}  {path}")
    others = left_behind(Path(args.dir), files)
    if others:
        print(f"warning: {len(others)} file(s) in {args.dir} are not part of the corpus and "
              f"{'would not be' if args.dry_run else 'were not'} uploaded: {', '.join(others[:5])}"
              + (" ..." if len(others) > 5 else ""), file=sys.stderr)
    total = sum(size for _, size in files)
    verb = "would upload" if args.dry_run else "uploaded"
    print(f"{verb} {len(files)} files, {total / 1e6:,.1f} MB, to dataset {args.repo_id}"
          + (f" (revision {args.revision})" if args.revision else ""))
    return 0


def _run_standin(args) -> int:
    from .standin import write_standin

    folder = Path(args.dir)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise ValueError(f"{folder} is not an empty folder: the stand-in is written into a new one")
    write_standin(folder, args.recordings, args.seconds, source=args.source, seed=args.seed, progress=not args.quiet)
    print(f"wrote {args.recordings} recordings of {args.seconds:g} s to {folder}/Ystandin*_0.wav and their labels twice:\n"
          f"  {folder / 'labels.tsv'}  DCASE: filename onset offset event_label\n"
          f"  {folder / 'audioset.tsv'}  AudioSet strong: segment_id start_time_seconds end_time_seconds label, "
          f"the ids named in {folder / 'ontology.json'}\n"
          f"build on it: reasonaudio generate --source \"strong:{folder}?labels=audioset.tsv&ontology=ontology.json"
          f"&as_split=test\" --out natural-standin")
    return 0


def _standin_parser(sub) -> None:
    standin = sub.add_parser(
        "standin", help="write a stand-in strongly-labelled corpus (recordings, DCASE and AudioSet tables)",
        description="Render recordings whose truth is known (2-4 classes of the source each, repeated and "
                    "overlapping at differing levels) and write what an annotator would: every event with its "
                    "onset and offset jittered by up to 0.1 s, some split in two by a short gap, as a DCASE table "
                    "(labels.tsv) and an AudioSet strong table (audioset.tsv, ids named by ontology.json). A "
                    "natural build to try when no AudioSet strong or DESED download is at hand.")
    standin.add_argument("dir", help="a new (or empty) folder")
    standin.add_argument("--recordings", type=int, default=120,
                         help="how many recordings (default: %(default)s)")
    standin.add_argument("--seconds", type=float, default=10.0,
                         help="length of each recording in seconds, at least 5 (default: %(default)s)")
    standin.add_argument("--source", default="synthetic:",
                         help="the atomic sounds mixed into the recordings, any generate --source (default: %(default)s)")
    standin.add_argument("--seed", type=int, default=0, help="(default: %(default)s)")
    standin.add_argument("--quiet", action="store_true", help="no progress bar (default: off)")


def add_commands(sub) -> dict:
    """Register generate, merge, validate, publish and standin; returns their runners by name."""
    _generate_parser(sub)
    merge = sub.add_parser("merge", help="combine the folders of independent generate jobs and write the card",
                           description="Copy into OUT the corpus files that the jobs of a sharded generate "
                                       "(--num-shards N --shard-index i, one folder each) wrote, each checked to "
                                       "belong to the same plan (fingerprint), then record every split whose files "
                                       "are all there and write the dataset card. Exit 1 while some job's files are "
                                       "still missing; run it again once they are done.")
    merge.add_argument("out", help="the folder to complete (may itself hold some jobs' files)")
    merge.add_argument("parts", nargs="*", help="folders written by other jobs (default: none)")
    add_force(merge)
    validate = sub.add_parser(
        "validate", help="re-derive a generated folder from its files; exit 1 on any finding",
        description="Re-derive everything a generated folder claims from its own files and report each difference "
                    "with its file and row: the plan fingerprint recomputed from the tables against the stamp in "
                    "every file; every candidate re-judged by the relevance function and the qrels recomputed; "
                    "query texts and captions regenerated from constraints and events; the card compared with "
                    "the one the writer would write now; files the records do not declare; text or recording "
                    "leaks between splits; and, unless --quick, every clip decoded and compared with its "
                    "re-rendering from the published atomic sounds (catches swapped, edited or shifted audio).")
    validate.add_argument("dir", help="a folder written by reasonaudio generate or merge")
    validate.add_argument("--quick", action="store_true", help="skip decoding and re-rendering the audio (default: off: the full check)")
    validate.add_argument("--workers", type=int, default=2, help="processes for the audio check (default: %(default)s)")
    validate.add_argument("--quiet", action="store_true", help="no progress bar (default: off)")
    publish = sub.add_parser("publish", help="upload a validated folder as a Hugging Face dataset",
                             description="Validate DIR, then create the dataset repository (if needed) and upload "
                                         "the folder. The token comes from `huggingface-cli login` or HF_TOKEN and is "
                                         "never printed.")
    publish.add_argument("dir", help="a generated folder; only its card, records and declared data files are sent")
    publish.add_argument("--repo-id", required=True, help="ORG/NAME of the dataset repository")
    publish.add_argument("--private", action="store_true", help="create the repository private (default: public)")
    publish.add_argument("--revision", help="branch to upload to, created if missing (default: main)")
    publish.add_argument("--require-certificate", action="store_true",
                         help="refuse a folder without a validity certificate (`reasonaudio baselines --certify`) "
                              "(default: off: such a folder is published with a warning)")
    publish.add_argument("--dry-run", action="store_true",
                         help="list every file and its size; no network call (validates without decoding audio: "
                              "the upload itself runs the full check) (default: off)")
    _standin_parser(sub)
    return {"generate": _run_generate, "merge": _run_merge, "validate": _run_validate, "publish": _run_publish,
            "standin": _run_standin}
