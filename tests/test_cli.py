"""The command line a newcomer meets first: `--help` that loads no heavy library (bench/cli_help_bench.py
times it), and every subcommand's help."""
import subprocess
import sys

import pytest

from reasonaudio_cli import build_parser

HEAVY = ("torch", "datasets", "scipy", "transformers", "pandas", "pyarrow", "sklearn", "matplotlib",
         "audiomentations", "soundfile", "evaluate", "huggingface_hub")


def test_building_the_parser_imports_no_heavy_library():
    code = ("import sys, reasonaudio_cli; reasonaudio_cli.build_parser(); "
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
