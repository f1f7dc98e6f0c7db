"""The layers as a contract: every import points down the layers setup.cfg's [importlinter] section names
(`lint-imports` checks them, the imports inside functions too), and no project module imports itself back
through others (an import circle)."""
import ast
import subprocess
import sys
from pathlib import Path

from tests.installed import lint_imports

ROOT = Path(__file__).resolve().parents[1]


def test_every_import_points_down_the_layers():
    checked = lint_imports()
    assert checked.returncode == 0 and " 0 broken" in checked.stdout, checked.stdout + checked.stderr


# In a fresh interpreter, which has not imported the project (see `installed_graph`).
CIRCLES = """
from tests.installed import installed_graph
graph = installed_graph()
for importer in graph.modules:
    for imported in graph.find_modules_directly_imported_by(importer):
        if graph.chain_exists(importer=imported, imported=importer):
            circle = (importer, *graph.find_shortest_chain(importer=imported, imported=importer)[:-1])
            first = circle.index(min(circle))
            print(" -> ".join(circle[first:] + circle[:first] + (min(circle),)))
print(len(graph.modules), "modules", int("reasonaudio.generation.pipeline" in graph.modules))
"""


def test_no_module_imports_itself_back():
    found = subprocess.run([sys.executable, "-c", CIRCLES], cwd=ROOT, capture_output=True, text=True)
    *circles, counted = found.stdout.splitlines() or [found.stderr]
    assert not circles, "import circles:\n" + "\n".join(sorted(set(circles)))
    modules, _, generator = counted.split()
    assert found.returncode == 0 and int(modules) > 100 and generator == "1", found.stderr


def parameter_count(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """The parameters a caller passes (self and cls not counted; *args and **kwargs one each)."""
    arguments = function.args
    named = arguments.posonlyargs + arguments.args
    own = 1 if named and named[0].arg in ("self", "cls") else 0
    return len(named) - own + len(arguments.kwonlyargs) + bool(arguments.vararg) + bool(arguments.kwarg)


def test_no_function_takes_more_than_eight_parameters():
    """Longer lists are a context object's job: what is the same for a whole split or run travels as one."""
    crowded = [f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({parameter_count(node)})"
               for package in ("reasonaudio", "generation", "reasonaudio_dataset", "reasonaudio_metric")
               for path in sorted((ROOT / package).rglob("*.py"))
               for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and parameter_count(node) > 8]
    assert not crowded, "more than 8 parameters:\n" + "\n".join(crowded)


def called(call: ast.Call) -> str:
    """The name a call calls: `f` of `f(...)` and of `module.f(...)`."""
    return getattr(call.func, "attr", "") or getattr(call.func, "id", "")


PATCHERS = ("setattr", "object", "killed_after")    # monkeypatch.setattr, mock.patch.object, the tests' own


def test_tests_use_public_names_only():
    """A test imports what a user can: no `from reasonaudio... import _name` and no patching of a private
    name of the project (a private name may change with no one outside its module told)."""
    project = ("reasonaudio", "reasonaudio_dataset", "reasonaudio_metric")
    private = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(project):
                private += [f"{path.relative_to(ROOT)}:{node.lineno} imports {alias.name} from {node.module}"
                            for alias in node.names if alias.name.startswith("_") and not alias.name.endswith("__")]
            if isinstance(node, ast.Call) and called(node) in PATCHERS:
                private += [f"{path.relative_to(ROOT)}:{node.lineno} patches {argument.value}" for argument in node.args
                            if isinstance(argument, ast.Constant) and isinstance(argument.value, str)
                            and argument.value.startswith("_") and not argument.value.endswith("__")]
    assert not private, "\n".join(private)


def test_the_kind_of_build_is_chosen_in_one_place():
    """The pipeline and validate ask the build's kind (generation/kinds.py) what differs; only there is the
    source asked whether it is natural."""
    asking = [f"{path.relative_to(ROOT)}:{node.lineno}" for path in sorted((ROOT / "generation").rglob("*.py"))
              if path.name not in ("kinds.py", "natural.py")
              for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
              if isinstance(node, ast.Call) and called(node) == "is_natural"]
    assert not asking, "is_natural asked outside generation/kinds.py: " + ", ".join(asking)
