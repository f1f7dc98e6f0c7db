"""The benchmark version moves with the reference builds: a change to the plans of any of them, with the version
left as it is, fails here. Every build and every results file says which version it was made at."""
import json

import pytest

from reasonaudio.cli import main
from reasonaudio.generation.references import reference_fingerprint
from reasonaudio.versions import BENCHMARK_VERSION, REFERENCE_FINGERPRINTS, __version__


@pytest.mark.parametrize("name", ["synthetic", "paper", "count-synthetic"])
@pytest.mark.slow
def test_a_reference_build_plans_as_its_benchmark_version_says(name, tmp_path):
    assert reference_fingerprint(tmp_path, name) == REFERENCE_FINGERPRINTS[name], (
        f"the {name} build's plan changed: a new benchmark version (reasonaudio/versions.py, CHANGELOG.md)")


@pytest.mark.esc50
@pytest.mark.slow
@pytest.mark.parametrize("name", ["esc50-subset", "count-esc50"])
def test_the_esc50_references_plan_as_their_benchmark_version_says(name, esc50, tmp_path):
    assert reference_fingerprint(tmp_path, name, esc50) == REFERENCE_FINGERPRINTS[name]


@pytest.mark.slow
def test_the_natural_reference_plans_as_its_benchmark_version_says(tmp_path):
    assert reference_fingerprint(tmp_path, "natural-standin") == REFERENCE_FINGERPRINTS["natural-standin"]


@pytest.mark.parametrize("name", ["esc50-subset", "count-esc50"])
def test_without_the_recordings_an_esc50_reference_is_not_planned(name, tmp_path):
    assert reference_fingerprint(tmp_path, name) is None


def test_version_prints_both_versions(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"reasonaudio {__version__} (benchmark version {BENCHMARK_VERSION})"


def test_a_build_and_its_results_carry_the_benchmark_version(small_corpus, tmp_path):
    record = json.loads((small_corpus / ".reasonaudio" / "test.json").read_text())
    assert record["benchmark_version"] == BENCHMARK_VERSION
    card = (small_corpus / "README.md").read_text()
    assert f"benchmark_version: {BENCHMARK_VERSION}" in card and f"version **{BENCHMARK_VERSION}**" in card
    assert main(["evaluate", "--data", str(small_corpus), "--model", "oracle", "--out", str(tmp_path / "run"),
                 "--quiet"]) == 0
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    assert results["benchmark_version"] == BENCHMARK_VERSION and results["versions"]["reasonaudio"] == __version__
    assert results["build"]["benchmark_version"] == BENCHMARK_VERSION


def test_the_package_version_is_the_one_installed():
    from importlib.metadata import version

    assert version("reasonaudio") == __version__


def test_the_changelog_names_this_release_and_its_benchmark_version():
    from pathlib import Path

    changelog = (Path(__file__).resolve().parents[1] / "CHANGELOG.md").read_text()
    releases = [line for line in changelog.splitlines() if line.startswith("## [") and "Unreleased" not in line]
    assert releases[0].startswith(f"## [{__version__}]") and f"benchmark version {BENCHMARK_VERSION}" in releases[0]
    assert all(fingerprint in changelog for fingerprint in REFERENCE_FINGERPRINTS.values())
