"""A build's validity certificate: written by `baselines --certify` into the build and its card, checked by
`validate` against the build (a certificate or a card made for another build is refused), asked for by `publish`."""
import json
import shutil

import pytest

from reasonaudio.cli import main
from reasonaudio.evaluation import cli
from reasonaudio.evaluation.certify import certificate, write_certificate
from reasonaudio.generation.pipeline import generate
from reasonaudio.generation.validate import validate
from reasonaudio_dataset.card import load_records
from reasonaudio_dataset.certificate import SECTION, certificate_path, read_certificate

from ..conftest import small_config

def results(queries: int = 2 * cli.MIN_CELL, cells: dict[str, int] | None = None) -> dict:
    """Two systems and a tie row as baselines scores them (per task accuracy, and its interval) on two tasks of
    `queries` each, broken down into `cells` (cell: its queries) when given."""
    sizes = {"num_queries": {"negation": queries, "order": queries},
             **({"breakdown": {"by": ["task", "shape", "depth"],
                               "cells": {key: {"num_queries": n} for key, n in cells.items()}}} if cells else {})}
    return {
        "oracle": {**sizes, "negation": {"accuracy": 1.0}, "order": {"accuracy": 1.0}, "average": {"accuracy": 1.0},
                   "intervals": {t: {"accuracy": (1.0, 1.0)} for t in ("negation", "order", "average")}},
        "bag-of-sounds": {**sizes, "negation": {"accuracy": 0.2}, "order": {"accuracy": 0.4}, "average": {"accuracy": 0.3},
                          "intervals": {"negation": {"accuracy": (0.0, 0.6)}, "order": {"accuracy": (0.0, 0.8)},
                                        "average": {"accuracy": (0.1, 0.5)}}},
        "a tie": {**sizes, "negation": {"accuracy": 0.5}, "order": {"accuracy": 0.5},
                  "average": {"accuracy": 0.5}},          # a tie row: means, no intervals
    }


RESULTS = results()


def certified(folder, flagged=(), scored=RESULTS):
    """Certify `folder` with the figures `scored`, as `baselines --certify` does."""
    fingerprint = load_records(folder)["test"]["fingerprint"]
    return write_certificate(folder, fingerprint, lambda record: certificate(
        scored, {"bag-of-sounds": "chance"}, list(flagged), record, f"reasonaudio baselines --data {folder} "
        "--train /somewhere/train --out runs --certify"))


@pytest.fixture
def copy(small_corpus, tmp_path):
    return shutil.copytree(small_corpus, tmp_path / "build")


def test_a_certified_build_shows_its_figures_in_the_card_and_validates(copy):
    path = certified(copy)
    found = read_certificate(copy)
    assert path == certificate_path(copy) and found["fingerprint"] == load_records(copy)["test"]["fingerprint"]
    card = (copy / "README.md").read_text()
    assert f"\n{SECTION}\n" in card and f"fingerprint `{found['fingerprint']}`" in card
    assert "| bag-of-sounds | chance | 20.0 [0.0, 60.0] | 40.0 [0.0, 80.0] | 30.0 [10.0, 50.0] |" in card
    assert "| a tie | reported | 50.0 | 50.0 | 50.0 |" in card and "**Cells flagged**: none" in card
    assert "--train train --out runs --certify`" in card and "/somewhere" not in card   # no local path published
    assert validate(copy, quick=True) == []


def test_flagged_cells_are_listed(copy):
    certified(copy, ["order (n=40): bag-of-sounds is +30.0 points [+10.0, +50.0] from chance: ..."])
    assert "**Cells flagged**:\n\n- order (n=40): bag-of-sounds is +30.0 points" in (copy / "README.md").read_text()


def test_a_certificate_or_a_card_from_another_build_is_refused(copy, tmp_path):
    certified(copy)
    other = tmp_path / "seed1"
    generate(small_config(other, seed=1))
    shutil.copy(copy / "README.md", other / "README.md")        # the card pasted onto a build of another seed
    assert any("README.md carries a validity section" in line for line in validate(other, quick=True))
    shutil.copy(certificate_path(copy), certificate_path(other))  # and its certificate with it
    found = validate(other, quick=True)
    mine, theirs = (load_records(folder)["test"]["fingerprint"] for folder in (other, copy))
    assert any(f"certifies the test split {theirs}, but this build's test split is {mine}" in line for line in found)


def test_a_split_changed_while_the_baselines_ran_is_not_certified(copy):
    with pytest.raises(ValueError, match="its test split changed while the baselines ran"):
        write_certificate(copy, "0123456789abcdef", lambda record: {})
    assert not certificate_path(copy).exists()


def test_publish_warns_without_a_certificate_and_refuses_when_one_is_required(copy, capsys):
    assert main(["publish", str(copy), "--repo-id", "org/x", "--dry-run"]) == 0
    assert "has no validity certificate" in capsys.readouterr().err
    assert main(["publish", str(copy), "--repo-id", "org/x", "--dry-run", "--require-certificate"]) == 1
    assert "has no validity certificate" in capsys.readouterr().err
    certified(copy)
    assert main(["publish", str(copy), "--repo-id", "org/x", "--dry-run", "--require-certificate"]) == 0
    said = capsys.readouterr()
    assert "validity certificate" not in said.err and ".reasonaudio/certificate.json" in said.out


def test_certify_needs_a_local_build_and_an_out(copy, capsys):
    assert main(["baselines", "--data", "org/build", "--certify"]) == 2
    assert "must be a local folder" in capsys.readouterr().err
    assert main(["baselines", "--data", str(copy), "--certify"]) == 2
    assert "--certify needs --out" in capsys.readouterr().err


@pytest.mark.slow
def test_baselines_certify_writes_a_certificate_validate_accepts(small_corpus, tmp_path, capsys):
    build = shutil.copytree(small_corpus, tmp_path / "build")
    generate(small_config(build, split="train"))
    assert main(["baselines", "--data", str(build), "--out", str(tmp_path / "runs"), "--certify", "--quiet"]) == 0
    said = capsys.readouterr().out
    assert f"not certified: {certificate_path(build)}" in said and "too small to certify" in said   # 6 queries a task
    found = json.loads(certificate_path(build).read_text())
    names = [system["name"] for system in found["systems"]]
    assert {"oracle", "bag-of-sounds", "least-busy", "shortcut-audit", "relation-blind"} <= set(names)
    oracle = next(system for system in found["systems"] if system["name"] == "oracle")
    assert oracle["tasks"]["average"][0] == 1.0 and oracle["held_to"] == ""
    assert next(s for s in found["systems"] if s["name"] == "bag-of-sounds")["held_to"] == "the named sounds' count tie"
    assert validate(build, quick=True) == []


def test_a_natural_build_says_how_many_recordings_it_had_against_where_its_groups_balance():
    from reasonaudio_dataset.certificate import certificate_section

    record = {"fingerprint": "0123456789abcdef", "natural": {"recordings": 300, "balanced_from": 1000}}
    few = certificate_section(certificate(RESULTS, {}, [], record, "reasonaudio baselines --certify"))
    assert "A natural build of 300 recordings, fewer than the 1,000 from which its groups balance." in few
    record["natural"]["recordings"] = 3000
    many = certificate_section(certificate(RESULTS, {}, [], record, "reasonaudio baselines --certify"))
    assert "A natural build of 3,000 recordings." in many and "fewer" not in many


def test_a_build_too_small_to_test_is_never_called_clean(copy, capsys):
    """Cells under MIN_CELL queries are not tested: a build where no cell reaches it is too small to certify, and
    its certificate and card say so instead of "none flagged"."""
    small = cli.MIN_CELL - 10
    certified(copy, scored=results(small, {"negation/shape=not/depth=1": small, "order/shape=before/depth=1": small}))
    assert read_certificate(copy)["coverage"] == {"cells": 4, "untested": 4, "min_queries": cli.MIN_CELL}
    card = (copy / "README.md").read_text()
    assert f"**Not certified**: too small to certify: no cell reaches {cli.MIN_CELL} queries; 4 cells untested." in card
    assert "Cells flagged" not in card and "none" not in card.split(SECTION)[1]
    assert validate(copy, quick=True) == []
    assert main(["publish", str(copy), "--repo-id", "org/x", "--dry-run", "--require-certificate"]) == 1
    assert "is not certified: too small to certify" in capsys.readouterr().err


def test_a_build_with_some_cells_too_small_says_how_many_went_untested(copy):
    small = cli.MIN_CELL - 1         # each task tested, and its one negation cell; order's two cells are not
    certified(copy, scored=results(2 * small, {"negation/shape=not/depth=1": 2 * small,
                                               "order/shape=before/depth=1": small, "order/shape=chain/depth=2": small}))
    card = (copy / "README.md").read_text()
    assert (f"**Cells flagged**: none\n\n2 of 5 cells untested (fewer than {cli.MIN_CELL} queries).\n\nReproduce"
            in card)
    assert validate(copy, quick=True) == []


@pytest.mark.parametrize("queries, said", [
    (cli.MIN_CELL - 10, f"not certified: {{path}} and the Validity section of {{card}} say too small to certify: no cell "
                        f"reaches {cli.MIN_CELL} queries; 2 cells untested"),
    (cli.MIN_CELL, "certified: {path} and the Validity section of {card} (no cells flagged)"),
])
def test_baselines_certify_says_whether_it_certified(copy, tmp_path, monkeypatch, capsys, queries, said):
    """The console line of `baselines --certify` (its scoring stood in for: the certificate is what is checked)."""
    def scored(data, train, text_model, device, out, *rest):
        (tmp_path / "runs" / "oracle").mkdir(parents=True)
        return "the table", results(queries), []
    monkeypatch.setattr(cli, "baselines_table", scored)
    real = cli.check_data
    monkeypatch.setattr(cli, "check_data", lambda path, splits: None if splits == ("train",) else real(path, splits))
    assert main(["baselines", "--data", str(copy), "--out", str(tmp_path / "runs"), "--certify", "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert said.format(path=certificate_path(copy), card=copy / "README.md") in printed
    assert ("no cells flagged" in printed) == (queries >= cli.MIN_CELL)


def test_a_certificate_that_says_not_how_many_cells_it_tested_is_refused(copy):
    """A certificate without its coverage could call a build too small to test clean: validate names it, and the
    card and publish read no certificate from it."""
    certified(copy)
    found = json.loads(certificate_path(copy).read_text())
    del found["coverage"]
    certificate_path(copy).write_text(json.dumps(found))
    assert read_certificate(copy) is None
    assert any(f"{certificate_path(copy)}: not a readable certificate" in line and "coverage" in line
               for line in validate(copy, quick=True))
