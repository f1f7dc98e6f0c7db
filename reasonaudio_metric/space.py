"""`reasonaudio publish-metric`: the metric as a Hugging Face Space, as evaluate's own template shapes one.

A Space `ORG/NAME` holds `NAME.py` (the evaluate module; evaluate finds it by the repository's name),
`functional.py` (its maths, fetched by evaluate as a relative import), `README.md` (the metric card, with
the Space's front matter: gradio `GRADIO` on this build's Python), `requirements.txt` (the libraries at
the versions this build was made with, and gradio) and `app.py` (a gradio page over
`evaluate.load("ORG/NAME")`: JSON similarity and queries in, the result out; it launches only as the
Space's main script, so importing it needs no network). Afterwards `evaluate.load("ORG/NAME")` loads it
anywhere.

gradio 4.x imports `huggingface_hub.HfFolder`, which huggingface-hub 1.0 removed, and declares no upper
bound on it: beside datasets 5 (huggingface-hub >= 1.31) its Space installs and then crashes at start.
gradio 6.31.0 declares the range it works with, which datasets 5 falls in; a build from an environment
outside it is refused rather than uploaded to fail.
"""
from __future__ import annotations

import re
import shutil
import sys
import tempfile
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).parent
REQUIREMENTS = ("evaluate", "datasets", "huggingface-hub", "numpy", "pyarrow")   # pinned to this environment's
GRADIO = "6.31.0"                   # the Space's SDK, installed and imported with those pins in a test
GRADIO_HUB = ">=1.16.0,<3.0"        # the huggingface-hub versions gradio 6.31.0 declares
APP = '''"""The Space's page: paste a similarity matrix and the queries (JSON), get the metric's result.

evaluate's own `launch_gradio_widget` builds inputs from the module's features only (similarity,
query_id) and uses gradio 3 components; this metric also needs `queries=`, so the page is its own.
"""
import json

import evaluate
import numpy as np

MODULE = "{repo_id}"
EXAMPLE_SIMILARITY = "[[0.9, 0.1], [0.5, 0.5]]"
EXAMPLE_QUERIES = json.dumps({{"query_id": ["q0", "q1"], "task": ["order", "negation"],
                              "candidates": [["a", "b"], ["c", "d"]], "positive": ["a", "d"]}})


def score(similarity: str, queries: str, bootstrap: float = 0, metric=None) -> dict:
    """The metric's result for a JSON similarity matrix (group mode: queries x candidates) and JSON queries."""
    metric = evaluate.load(MODULE) if metric is None else metric
    return metric.compute(similarity=np.asarray(json.loads(similarity), dtype=float), queries=json.loads(queries),
                          bootstrap=int(bootstrap))


def page():
    """The gradio page (built, not launched)."""
    import gradio as gr

    return gr.Interface(fn=score, title="ReasonAudio metric",
                        inputs=[gr.Textbox(label="similarity (JSON, queries x candidates)", value=EXAMPLE_SIMILARITY,
                                           lines=4),
                                gr.Textbox(label="queries (JSON: query_id, task, candidates, positive)",
                                           value=EXAMPLE_QUERIES, lines=4),
                                gr.Number(label="bootstrap resamples", value=0, precision=0)],
                        outputs=gr.JSON(label="result"))


if __name__ == "__main__":
    page().launch()
'''

def _repo_name(repo_id: str) -> str:
    if not re.fullmatch(r"[\w.-]+/[A-Za-z_][\w]*", repo_id or ""):
        raise ValueError(f"--repo-id must be ORG/NAME with NAME a Python identifier (evaluate imports NAME.py), "
                         f"e.g. my-org/reasonaudio; got {repo_id!r}")
    return repo_id.split("/")[1]


def version() -> str:
    try:
        return metadata.version("reasonaudio")
    except metadata.PackageNotFoundError:
        return "unknown"


def build_space(repo_id: str, out: str | Path) -> Path:
    """Write the Space's files into `out` (whose name must be the repository's NAME: `evaluate.load(out)`
    then loads it as `evaluate.load("ORG/NAME")` will). Refuses a non-empty `out`: nothing is overwritten."""
    name, out = _repo_name(repo_id), Path(out)
    if out.name != name:
        raise ValueError(f"--out {out}: the folder must be named {name!r} like the Space, so that "
                         f"evaluate.load({str(out)!r}) finds {name}.py in it")
    if out.exists() and any(out.iterdir()):
        raise ValueError(f"--out {out} is not empty; choose a new folder (nothing was written)")
    pins = _pins()
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(HERE / "reasonaudio_metric.py", out / f"{name}.py")
    shutil.copyfile(HERE / "functional.py", out / "functional.py")
    card = (HERE / "README.md").read_text()
    card = card.replace('evaluate.load("./reasonaudio_metric")          # or the Hub Space id',
                        f'evaluate.load("{repo_id}")')
    card = card.replace("\n# Metric Card for ReasonAudio\n",
                        f"\n# Metric Card for ReasonAudio\n\nThis Space is `{repo_id}`, built by `reasonaudio "
                        f"publish-metric` from reasonaudio {version()}.\n")
    (out / "README.md").write_text(space_card(card))
    (out / "requirements.txt").write_text(f"# the metric of reasonaudio {version()}\n" + "\n".join(pins) + "\n")
    (out / "app.py").write_text(APP.format(repo_id=repo_id))
    return out


def _pins() -> list[str]:
    """The Space's requirements: this environment's versions of the metric's libraries, and gradio; refused
    when this huggingface-hub is outside the range gradio declares (the Space would not install)."""
    from packaging.specifiers import SpecifierSet

    pins = {package: metadata.version(package) for package in REQUIREMENTS}
    if pins["huggingface-hub"] not in SpecifierSet(GRADIO_HUB):
        raise ValueError(f"the Space runs gradio {GRADIO}, which needs huggingface-hub{GRADIO_HUB}; this environment "
                         f"has huggingface-hub {pins['huggingface-hub']} (upgrade datasets and huggingface-hub)")
    return [f"{package}=={pinned}" for package, pinned in pins.items()] + [f"gradio=={GRADIO}"]


def space_card(card: str) -> str:
    """The metric card with the Space's front matter: the gradio it runs, on the Python the pins were made on."""
    from huggingface_hub import SpaceCard

    space = SpaceCard(card)
    space.data.sdk_version, space.data.python_version = GRADIO, f"{sys.version_info.major}.{sys.version_info.minor}"
    return str(space)


def publish_space(repo_id: str, folder: Path, private: bool = False) -> str:
    """Create the Space (gradio SDK) if needed and upload the folder; returns the Space's URL."""
    from huggingface_hub import HfApi

    api = HfApi()
    url = api.create_repo(repo_id, repo_type="space", space_sdk="gradio", private=private, exist_ok=True)
    api.upload_folder(repo_id=repo_id, folder_path=str(folder), repo_type="space",
                      commit_message=f"ReasonAudio metric (reasonaudio {version()})")
    return str(url)


def add_commands(sub) -> dict:
    command = sub.add_parser(
        "publish-metric", help="build the metric's Hugging Face Space folder and upload it",
        description="Build a Space-shaped folder for the evaluate module (NAME.py named after --repo-id, its "
                    "functional core, the metric card, pinned requirements, a gradio app.py) and upload it, so that "
                    "evaluate.load(\"ORG/NAME\") works anywhere. The token comes from `huggingface-cli login` or "
                    "HF_TOKEN. Note: evaluate.load(\"reasonaudio\") with a bare name means the Hub Space "
                    "evaluate-metric/reasonaudio, which only Hugging Face can publish: use ORG/NAME.")
    command.add_argument("--repo-id", required=True, help="ORG/NAME of the Space; NAME must be a Python identifier")
    command.add_argument("--out", help="build the folder here (its name must be NAME; default: a temporary folder, "
                                       "removed after the upload)")
    command.add_argument("--private", action="store_true", help="create the Space private (default: public)")
    command.add_argument("--dry-run", action="store_true",
                         help="build and list the folder; upload nothing (default: off)")
    return {"publish-metric": run_publish_metric}


def run_publish_metric(args) -> int:
    _repo_name(args.repo_id)
    with tempfile.TemporaryDirectory() as scratch:
        folder = build_space(args.repo_id, args.out or Path(scratch) / args.repo_id.split("/")[1])
        for path in sorted(folder.iterdir()):
            print(f"{path.stat().st_size:>10,d}  {path.name}")
        if args.dry_run:
            print(f"dry run: nothing uploaded; the folder is {folder}" if args.out else
                  "dry run: nothing uploaded (pass --out FOLDER to keep the folder)")
            return 0
        url = publish_space(args.repo_id, folder, args.private)
    print(f"uploaded to {url}; load it with evaluate.load({args.repo_id!r})")
    return 0
