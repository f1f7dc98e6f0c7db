"""The layers as a contract: every import points down the layers setup.cfg's [importlinter] section names
(`lint-imports` checks them, the imports inside functions too), and no project module imports itself back
through others (an import circle)."""
import configparser
import os
import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"


def this_tree() -> dict:
    """The environment in which this checkout's packages, not an installed copy's, are the ones analysed."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}


def test_every_import_points_down_the_layers():
    checked = subprocess.run([sys.executable, "-c", LINT_IMPORTS, "--config", str(ROOT / "setup.cfg"), "--no-cache"],
                             cwd=ROOT, env=this_tree(), capture_output=True, text=True)
    assert checked.returncode == 0 and " 0 broken" in checked.stdout, checked.stdout + checked.stderr


def test_no_module_imports_itself_back():
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    sys.path.insert(0, str(ROOT))
    try:
        graph = grimp.build_graph(*config["importlinter"]["root_packages"].split(), cache_dir=None)
    finally:
        sys.path.remove(str(ROOT))
    circles = set()
    for importer in graph.modules:
        for imported in graph.find_modules_directly_imported_by(importer):
            if graph.chain_exists(importer=imported, imported=importer):
                circle = (importer, *graph.find_shortest_chain(importer=imported, imported=importer)[:-1])
                first = circle.index(min(circle))
                circles.add(" -> ".join(circle[first:] + circle[:first] + (min(circle),)))
    assert not circles, "import circles:\n" + "\n".join(sorted(circles))
