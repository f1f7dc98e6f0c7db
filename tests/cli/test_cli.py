"""The command line a newcomer meets first: `--help` that loads no heavy library (bench/cli_help_bench.py
times it), and every subcommand's help."""
import subprocess
import sys

import pytest

from reasonaudio.cli import build_parser

HEAVY = ("torch", "datasets", "scipy", "transformers", "pandas", "pyarrow", "sklearn", "matplotlib",
         "audiomentations", "soundfile", "evaluate", "huggingface_hub")


def test_building_the_parser_imports_no_heavy_library():
    code = ("import sys, reasonaudio.cli; reasonaudio.cli.build_parser(); "
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("command", sorted(build_parser()[1]))
def test_every_subcommand_has_help_with_its_defaults(command, capsys):
    parser, _ = build_parser()
    with pytest.raises(SystemExit) as exit_:
        parser.parse_args([command, "--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    assert f"usage: reasonaudio {command}" in text and ("default" in text or command == "merge")


def test_a_profile_sets_defaults_and_an_option_given_wins():
    from reasonaudio.generation.cli import generate_config

    parser, _ = build_parser()
    paper = generate_config(parser.parse_args(["generate", "--profile", "paper", "--out", "x"]))
    assert (paper.clip_seconds, paper.text_style, paper.queries_per_task, paper.candidates) == (30.0, "paper", 200, 10)
    for order in (["--clip-seconds", "10", "--profile", "paper"], ["--profile", "paper", "--clip-seconds", "10"]):
        config = generate_config(parser.parse_args(["generate", *order, "--out", "x"]))
        assert (config.clip_seconds, config.text_style) == (10.0, "paper")     # given, even at the default, wins
    plain = generate_config(parser.parse_args(["generate", "--out", "x"]))
    assert (plain.clip_seconds, plain.text_style) == (10.0, "natural")


def test_standin_writes_a_strong_label_corpus_and_says_what_it_wrote(tmp_path, capsys):
    from reasonaudio.cli import main

    folder = tmp_path / "standin"
    assert main(["standin", str(folder), "--recordings", "3", "--seconds", "6", "--quiet"]) == 0
    said = capsys.readouterr().out
    for name in ("labels.tsv", "audioset.tsv", "ontology.json"):
        assert (folder / name).is_file() and str(folder / name) in said
    assert len(list(folder.glob("Ystandin*_0.wav"))) == 3 and f'--source "strong:{folder}?labels=' in said
    for argv, message in ((["standin", str(folder)], "is not an empty folder"),
                          (["standin", str(tmp_path / "new"), "--seconds", "nan"], "seconds must be from 5 to 600"),
                          (["standin", str(tmp_path / "new"), "--recordings", "0"], "recordings must be from 1")):
        assert main(argv) == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "new").exists()


def test_the_top_level_help_lists_every_baseline_and_merge_says_what_it_does(capsys):
    from reasonaudio.evaluation.cli import BASELINES

    parser, _ = build_parser()
    listed = {choice.dest: choice.help for action in parser._subparsers._group_actions
              for choice in action._choices_actions}     # what --help prints beside each command
    assert all(spec.partition(":")[0] in listed["baselines"] for spec in BASELINES)
    with pytest.raises(SystemExit):
        parser.parse_args(["merge", "--help"])
    assert "belong to the same plan" in " ".join(capsys.readouterr().out.split())


def test_an_interrupted_command_is_one_line_not_a_traceback(monkeypatch, capsys):
    from reasonaudio import cli as reasonaudio_cli

    def killed():
        raise KeyboardInterrupt
    monkeypatch.setattr(reasonaudio_cli, "main", killed)
    assert reasonaudio_cli.entry() == 130
    said = capsys.readouterr().err
    assert said.startswith("reasonaudio: interrupted;") and said.count("\n") == 1


def test_evaluate_and_validate_say_what_they_do_first_and_evaluate_where_it_wrote_last(small_corpus, tmp_path, capsys):
    from reasonaudio.evaluation.report import RESULT_FILES
    from reasonaudio.cli import main

    out = tmp_path / "run"
    assert main(["evaluate", "--data", str(small_corpus), "--model", "oracle", "--out", str(out), "--bootstrap", "0"]) == 0
    said = capsys.readouterr()
    assert said.err.startswith(f"evaluate: oracle on {small_corpus} (split test, group mode) into {out}\n")
    assert said.out.strip().splitlines()[-1] == "wrote " + ", ".join(str(out / name) for name in RESULT_FILES)
    assert main(["validate", str(small_corpus), "--quick"]) == 0
    said = capsys.readouterr()
    assert said.err.startswith(f"validate: {small_corpus}: every record, table and the card re-derived\n")


@pytest.mark.parametrize("argv, named", [(["generate", "--out", "x", "--sample-rate", "16k"], "--sample-rate"),
                                         (["evaluate", "--data", "x", "--out", "y"], "--model"),
                                         (["generat"], "invalid choice")])
def test_a_bad_argument_is_one_line_naming_it_not_the_usage_block(argv, named, capsys):
    from reasonaudio.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(argv)
    lines = capsys.readouterr().err.strip().splitlines()
    assert exit_.value.code == 2 and len(lines) == 1 and named in lines[0] and "--help" in lines[0]


def test_a_mistyped_train_model_is_refused_before_torch_loads(training_splits, tmp_path):
    code = ("import sys; from reasonaudio.cli import main; "
            f"status = main(['train', '--data', {str(training_splits)!r}, '--out', {str(tmp_path / 'm')!r}, "
            "'--model', 'smal']); print(status, 'torch' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.split() == ["2", "False"] and "unknown --model 'smal'" in done.stderr


def test_train_says_what_it_does_first(training_splits, tmp_path, capsys):
    from reasonaudio.cli import main

    out = tmp_path / "model"
    assert main(["train", "--data", str(training_splits), "--out", str(out), "--lr", "5"]) == 2   # refused once begun
    said = capsys.readouterr().err.splitlines()
    assert said[0] == (f"train: small on the train split of {training_splits}, 5 epochs, scored on its validation split "
                       f"after each; the best into {out}") and "--lr" in said[-1]
