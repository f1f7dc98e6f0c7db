"""This checkout's packages laid out as an install lays them out, for the tools that read packages from folders.

setup.cfg maps the top-level folder `generation/` to the package `reasonaudio.generation` (`package_dir`), so in
the clone the generator is not inside `reasonaudio/`. import-linter and grimp find a package's modules by walking
its folder: they see the layers only in the installed layout, which `lay_out` copies (the Python files and the
package data of every package setup.cfg names, from where `package_dir` says each lives). setup.cfg's contracts
are of the types below, which check the installed layout's graph, so a bare `lint-imports` in the clone sees the
generator too.

    lint-imports                       # in the clone
    python tests/installed.py          # the same, as the tests run it
"""
from __future__ import annotations

import configparser
import copy
import functools
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import grimp
from importlinter.contracts.forbidden import ForbiddenContract
from importlinter.contracts.layers import LayersContract

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"


def setup_options() -> configparser.ConfigParser:
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    return config


def packages() -> list[str]:
    """The packages setup.cfg installs."""
    return setup_options()["options"]["packages"].split()


def source_folder(package: str) -> Path:
    """Where `package` lives in the clone: its longest prefix mapped by `package_dir`, the rest as folders."""
    mapped = dict(line.split("=") for line in setup_options()["options"]["package_dir"].split("\n") if "=" in line)
    mapped = {name.strip(): folder.strip() for name, folder in mapped.items()}
    for prefix in sorted(mapped, key=len, reverse=True):
        if package == prefix or package.startswith(prefix + "."):
            return ROOT / mapped[prefix] / Path(*package[len(prefix):].split(".")[1:])
    return ROOT / Path(*package.split("."))


def lay_out(target: Path) -> Path:
    """Copy every package's modules and data files into `target` as installed (reasonaudio/generation/...).

    Args:
        target: an empty folder.

    Returns:
        `target`, to put first on a PYTHONPATH.
    """
    data = {name.strip(): patterns.split() for name, patterns in setup_options()["options.package_data"].items()}
    for package in packages():
        folder, into = source_folder(package), target / Path(*package.split("."))
        into.mkdir(parents=True, exist_ok=True)
        for pattern in ["*.py", *data.get(package, [])]:
            for path in folder.glob(pattern):
                (into / path.relative_to(folder)).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, into / path.relative_to(folder))
    return target


@functools.cache
def installed_graph() -> grimp.ImportGraph:
    """The import graph of setup.cfg's root packages, laid out as installed (built once a run), in a process that
    has not imported them (grimp would take an imported package's folder, the clone's)."""
    roots = setup_options()["importlinter"]["root_packages"].split()
    if any(root in sys.modules for root in roots):
        raise RuntimeError("installed_graph runs before the project is imported (as in lint-imports)")
    with tempfile.TemporaryDirectory() as folder:
        sys.path.insert(0, str(lay_out(Path(folder))))
        try:
            return grimp.build_graph(*roots, cache_dir=None)
        finally:
            sys.path.remove(folder)


class InstalledLayersContract(LayersContract):
    """import-linter's layers contract, on the installed layout (`installed_graph`)."""

    def check(self, graph: grimp.ImportGraph, verbose: bool):
        return super().check(copy.deepcopy(installed_graph()), verbose)


class InstalledForbiddenContract(ForbiddenContract):
    """import-linter's forbidden contract, on the installed layout (`installed_graph`)."""

    def check(self, graph: grimp.ImportGraph, verbose: bool):
        return super().check(copy.deepcopy(installed_graph()), verbose)


def lint_imports(*arguments: str) -> subprocess.CompletedProcess:
    """`lint-imports` with setup.cfg's contracts, run in the clone as a developer runs it.

    Returns:
        The finished process (its stdout is lint-imports' report).
    """
    return subprocess.run([sys.executable, "-c", LINT_IMPORTS, "--no-cache", *arguments], cwd=ROOT,
                          capture_output=True, text=True)


if __name__ == "__main__":
    done = lint_imports(*sys.argv[1:])
    print(done.stdout + done.stderr, end="")
    sys.exit(done.returncode)
