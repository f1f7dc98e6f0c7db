"""A system module's `METADATA`, `build` docstring and options are read from the module itself, imported: so its
top stays light (no model library), and its metadata is the object it declares, whatever expression builds it."""
from __future__ import annotations

import subprocess
import sys

import pytest

import reasonaudio.evaluation.systems as systems
from reasonaudio.evaluation.systems.metadata import CHANCE

MODEL_LIBRARIES = ("torch", "transformers", "sentence_transformers", "datasets")


def _loaded_after(code: str) -> list[str]:
    """The model libraries a fresh interpreter holds after running `code`."""
    probe = f"import sys\n{code}\nprint(sorted(m for m in {MODEL_LIBRARIES!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return done.stdout.splitlines()[-2:]


@pytest.mark.parametrize("argv", [["--help"], ["baselines", "--help"], ["evaluate", "--help"]])
def test_help_and_listing_the_kinds_load_no_model_library(argv):
    code = (f"from reasonaudio.cli import main\ntry:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
            "from reasonaudio.evaluation import systems\nassert systems.HELP and systems.BASELINES")
    assert _loaded_after(code)[-1] == "[]"


def test_a_wrong_spec_is_refused_before_torch_loads():
    code = ("from reasonaudio.evaluation.systems import check_spec\ntry:\n    check_spec('least-busy:?bye=events')\n"
            "except ValueError as error:\n    print(error)")
    refusal, loaded = _loaded_after(code)
    assert "bad options for model 'least-busy'" in refusal and "?by=..." in refusal and loaded == "[]"


@pytest.fixture
def toy_system(tmp_path, monkeypatch):
    """Writes a system module into a folder of the registry's package and registers its kind."""
    monkeypatch.setattr(systems, "__path__", [*systems.__path__, str(tmp_path)])
    written = []

    def write(kind: str, source: str) -> str:
        module = kind.replace("-", "_")
        (tmp_path / f"{module}.py").write_text(source, encoding="utf-8")
        monkeypatch.setitem(systems.SYSTEMS, kind, module)
        written.append(f"{systems.__name__}.{module}")
        return module

    yield write
    for name in written:
        sys.modules.pop(name, None)


TOY = '''"""`toy-computed`: a toy whose declaration is computed."""
from .metadata import CHANCE, BaselineMetadata

CUE = "how many events a candidate holds"

METADATA = BaselineMetadata("toy-computed", "nothing", " ".join(["no", "query,", "the", "busiest"]),
                            held_to=CHANCE, flag=f"{CUE} (no query) finds the positive", margin=1 / 4, flags="above")


def build(location: str = "", level: str = "1", *, depth: str = "2", device: str = "cpu"):
    """a toy, computed: toy-computed:?level=2&depth=3.

    Its second line is not the summary."""
'''


def test_metadata_built_by_any_expression_and_positional_arguments_is_read_as_declared(toy_system):
    module = toy_system("toy-computed", TOY)
    declared = systems.metadata(module)
    assert declared == systems.BaselineMetadata(
        name="toy-computed", reads="nothing", shows="no query, the busiest", held_to=CHANCE,
        flag="how many events a candidate holds (no query) finds the positive", margin=0.25, flags="above")
    assert declared is sys.modules[f"{systems.__name__}.{module}"].METADATA
    assert systems._summary(module) == "a toy, computed: toy-computed:?level=2&depth=3."
    assert systems._options(module) == (["level", "depth"], False)
    assert systems.check_spec("toy-computed:?depth=3")[2] == {"depth": "3"}
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['size'\]; it takes \?level=...&depth=..."):
        systems.check_spec("toy-computed:?size=3")


def test_metadata_that_is_not_a_baseline_metadata_is_refused_naming_its_file(toy_system):
    module = toy_system("toy-wrong", 'METADATA = {"name": "toy-wrong"}\n\n\ndef build(location=""):\n    """x"""\n')
    with pytest.raises(ValueError, match=r"toy_wrong\.py: METADATA is a dict, not a BaselineMetadata"):
        systems.metadata(module)
