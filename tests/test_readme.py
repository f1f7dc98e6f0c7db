"""README's commands and snippets stay true: the two set-up commands open it and CI runs the second;
every `reasonaudio` command in it parses; and every Python block and the command-line quickstart run,
as written but shrunk (2 queries per task, one short epoch), on tiny builds."""
import ast
import contextlib
import io
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import reasonaudio
from reasonaudio.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
USAGE = (ROOT / "docs" / "usage.md").read_text()     # the details README links to: its commands are checked too
SETUP = [["bash", ".ci/setup", "&&", ".venv/bin/reasonaudio", "demo"],
         ["bash", ".ci/setup", "&&", ".venv/bin/python", "-m", "pytest", "-q"]]
# What marks each Python block, and the test that runs it (test_acoustics runs the augmentation loop).
PYTHON_BLOCKS = {"metric.compute(similarity=": "test_the_python_quickstart_scores_a_tiny_build",
                 "class MyEncoder": "test_the_command_line_quickstart_runs (as my_models.py)",
                 "augment = Compose": "tests/generation/test_acoustics.py::test_the_readme_training_example_runs",
                 "StreamingTriplets(": "test_the_streaming_snippet_runs"}
SHRINK = {"generate": ["--queries-per-task", "2"], "train": ["--epochs", "1", "--max-steps", "2"]}
QUIET = ("generate", "validate", "evaluate", "train", "baselines")


def blocks(language: str, text: str = README) -> list[str]:
    return [block.split("```")[0] for block in text.split(f"```{language}\n")[1:]]


def block_with(language: str, marker: str) -> str:
    """The block of README (or, after it, of docs/usage.md) holding `marker`."""
    return next(block for block in blocks(language) + blocks(language, USAGE) if marker in block)


def commands(block: str) -> list[list[str]]:
    """Each command of a bash block as its words: continuation lines joined, comments dropped."""
    lines = block.replace("\\\n", " ").splitlines()
    return [words for words in (shlex.split(line, comments=True) for line in lines) if words]


def cli_words(words: list[str]) -> list[str] | None:
    """The `reasonaudio` arguments of a command line (torchrun's `-m reasonaudio` too), else None."""
    if words[0] == "torchrun" and "-m" in words:
        return words[words.index("-m") + 2:]
    return words[1:] if words[0] == "reasonaudio" else None


def shrunk(words: list[str]) -> list[str]:
    """README's command with its size options replaced by tiny ones, and no progress bars."""
    words = list(words)
    changes = SHRINK.get(words[0], [])
    for option, value in zip(changes[::2], changes[1::2]):
        if option in words:
            del words[words.index(option):words.index(option) + 2]
        words += [option, value]
    return words + (["--quiet"] if words[0] in QUIET else [])


def test_readme_opens_on_the_two_setup_commands_and_ci_runs_the_second():
    assert README.index("```bash\n") < README.index("\n## ")
    assert commands(blocks("bash")[0]) == SETUP
    assert (ROOT / ".ci" / "run").read_text().strip().splitlines()[-2:] == ["bash .ci/setup", " ".join(SETUP[1][3:])]


def test_every_readme_command_parses():
    """Every command of a bash block, and every inline one with options, against the real parser: a renamed
    command or option fails here, including those needing a GPU or the network that no test runs."""
    parser, _ = build_parser()
    found = [words for block in blocks("bash")[1:] + blocks("bash", USAGE)
             for words in map(cli_words, commands(block)) if words]
    prose = re.sub(r"```.*?```", "", README + USAGE, flags=re.S)
    inline = [shlex.split(text) for text in re.findall(r"`(reasonaudio [^`]+)`", prose)]
    found += [words[1:] for words in inline if any(w.startswith("--") for w in words)
              and not {"--help", "--version"} & set(words)]
    for words in found:
        error = io.StringIO()
        try:
            with contextlib.redirect_stderr(error):
                parser.parse_args(words)
        except SystemExit:
            pytest.fail(f"README or docs/usage.md: reasonaudio {shlex.join(words)}: {error.getvalue().strip().splitlines()[-1]}")
    used = {words[0] for words in found}
    assert {"generate", "validate", "evaluate", "train", "compare", "publish", "baselines", "publish-metric"} <= used


def test_every_python_block_is_run_by_a_test():
    for block in blocks("python") + blocks("python", USAGE):
        assert sum(marker in block for marker in PYTHON_BLOCKS) == 1, f"a README Python block no test runs:\n{block}"


def run_block(block: str, folder: Path) -> None:
    assert block.count('"demo"') >= 1   # README's folder (the demo's), here a tiny build
    code = block.replace('"demo"', repr(str(folder))).replace('"./reasonaudio_metric"',
                                                                      repr(str(ROOT / "reasonaudio_metric")))
    exec(compile(code, "README.md", "exec"), {})


def test_the_python_quickstart_scores_a_tiny_build(small_corpus, capsys):
    run_block(block_with("python", "metric.compute(similarity="), small_corpus)
    average = ast.literal_eval(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(average) == {"accuracy", "mrr", "hard_negative_pairwise"}
    assert 0 <= average["accuracy"] <= 1 and 0 <= average["hard_negative_pairwise"] <= 1


def _foreign_demo_cached(where: Path, cache: Path, environment: dict) -> None:
    """Another build named "demo" (3 queries) loaded once with plain `datasets` from `where`, so that the cache
    holds a stand-in that `datasets` falls back to for any "demo" it cannot find."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    (where / "demo" / "queries").mkdir(parents=True)
    pq.write_table(pa.table({"query_id": ["q0", "q1", "q2"], "text": ["a", "b", "c"]}),
                   where / "demo" / "queries" / "test.parquet")
    (where / "demo" / "README.md").write_text("---\nconfigs:\n- config_name: queries\n  data_files:\n  - split: test\n"
                                              "    path: queries/*.parquet\n---\n")
    load = 'import datasets; print(len(datasets.load_dataset("demo", "queries", split="test")))'
    done = subprocess.run([sys.executable, "-c", load], cwd=where, env=environment, capture_output=True, text=True)
    assert done.stdout.split() == ["3"], done.stderr
    assert any(cache.iterdir())


@pytest.mark.slow
def test_the_python_quickstart_never_scores_a_cached_build_of_the_same_name(small_corpus, tmp_path):
    """Run from a folder without demo/, with a foreign "demo" in the datasets cache, the quickstart refuses in one
    line before it loads anything; run beside the user's own demo/, it scores that one."""
    import shutil

    cache = tmp_path / "cache"
    environment = {**os.environ, "HF_DATASETS_CACHE": str(cache), "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
    _foreign_demo_cached(tmp_path / "elsewhere", cache, environment)
    code = block_with("python", "metric.compute(similarity=").replace('"./reasonaudio_metric"',
                                                                       repr(str(ROOT / "reasonaudio_metric")))
    code += "\nprint('queries', len(queries))\n"
    (tmp_path / "empty").mkdir()
    refused = subprocess.run([sys.executable, "-c", code], cwd=tmp_path / "empty", env=environment,
                             capture_output=True, text=True)
    assert refused.returncode == 1 and "queries" not in refused.stdout
    assert "cached" not in refused.stderr and refused.stderr.strip().splitlines()[-1].startswith("ValueError: demo: ")
    shutil.copytree(small_corpus, tmp_path / "mine" / "demo")
    scored = subprocess.run([sys.executable, "-c", code], cwd=tmp_path / "mine", env=environment,
                            capture_output=True, text=True)
    queries = len(reasonaudio.load_reasonaudio(str(small_corpus)).queries)
    assert scored.returncode == 0 and scored.stdout.split()[-2:] == ["queries", str(queries)], scored.stderr


def run_commands(lines: list[list[str]], folder: Path) -> None:
    """README's `reasonaudio` command lines, shrunk, run in `folder`; the working directory, the Python path and
    the modules README's commands import (my_models) are as before afterwards."""
    start, path = os.getcwd(), list(sys.path)
    os.chdir(folder)
    try:
        for words in lines:
            assert main(shrunk(cli_words(words))) == 0, shlex.join(words)
    finally:
        os.chdir(start)
        sys.path[:] = path
        sys.modules.pop("my_models", None)


@pytest.fixture(scope="module")
def quickstart(tmp_path_factory) -> Path:
    """README's command-line quickstart run in a fresh folder, README's encoder saved there as my_models.py."""
    where = tmp_path_factory.mktemp("quickstart")
    (where / "my_models.py").write_text(block_with("python", "class MyEncoder"))
    lines = commands(block_with("bash", "reasonaudio compare"))
    assert lines[0] == ["source", ".venv/bin/activate"] and all(cli_words(words) for words in lines[1:])
    run_commands(lines[1:], where)
    return where


@pytest.mark.slow
def test_the_command_line_quickstart_runs(quickstart, capsys):
    runs = quickstart / "runs"
    assert all((runs / name / "per_query.parquet").is_file() for name in ("mine", "bag", "small"))
    assert (quickstart / "checkpoints" / "small" / "reasonaudio_model.json").is_file()
    leaderboard = (runs / "compare" / "compare.md").read_text()
    assert all(f"| {name} |" in leaderboard for name in ("mine", "bag", "small"))
    assert "python:my_models:make_encoder?size=base" in leaderboard


def test_the_streaming_snippet_runs(quickstart):
    pytest.importorskip("torch")
    run_block(block_with("python", "StreamingTriplets("), quickstart / "mybench")


def test_readme_names_no_folder_of_this_machine():
    assert all("../shared" not in text and "/work/" not in text for text in (README, USAGE))


def write_esc50_standin(folder: Path) -> None:
    """A folder of ESC-50's layout (audio/*.wav, meta/esc50.csv sorted by file name) from the built-in bank:
    5 clips of each class in fold 4 (so that `per_class=4` leaves one out) and one in fold 1."""
    import csv

    import soundfile

    from reasonaudio.generation.sources import open_source

    recordings = open_source("synthetic:?variants=6")
    targets = {label: k for k, label in enumerate(sorted({r.label for r in recordings}))}
    rows, seen = [], {}
    (folder / "audio").mkdir(parents=True)
    for number, recording in enumerate(recordings):
        seen[recording.label] = seen.get(recording.label, 0) + 1
        fold = 4 if seen[recording.label] <= 5 else 1
        name = f"{fold}-{100000 + number}-A-{targets[recording.label]}.wav"
        soundfile.write(folder / "audio" / name, *recording.load())
        rows.append({"filename": name, "fold": fold, "target": targets[recording.label], "category": recording.label,
                     "esc10": "False", "src_file": 100000 + number, "take": "A"})
    (folder / "meta").mkdir()
    with open(folder / "meta" / "esc50.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, list(rows[0]))
        writer.writeheader()
        writer.writerows(sorted(rows, key=lambda row: row["filename"]))


@pytest.mark.slow
def test_the_reference_commands_run_on_a_download_of_esc50s_layout(tmp_path, capsys):
    """README's reference results, for a user who cloned ESC-50: its commands, shrunk, on a stand-in folder of
    the same layout (`ESC-50` in them is the clone)."""
    write_esc50_standin(tmp_path / "ESC-50")
    block = block_with("bash", "reasonaudio baselines --data esc50")
    lines = commands(block)
    assert lines[0][:2] == ["git", "clone"] and lines[0][2].endswith("github.com/karolpiczak/ESC-50")
    run_commands(lines[1:], tmp_path)
    printed = capsys.readouterr().out
    assert "| oracle | 100.0 [100.0, 100.0]" in printed and (tmp_path / "runs" / "esc50" / "baselines.json").is_file()
    test = json.loads((tmp_path / "esc50" / ".reasonaudio" / "test.json").read_text())
    assert test["counts"]["atomic_sounds"] == 4 * 24                 # fold 4's first four clips of each class
