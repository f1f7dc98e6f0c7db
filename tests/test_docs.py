"""The docs are a reference, not a notebook: README is short and cites the paper; no page names an issue, a
pass, a commit or a scratch path; every relative link reaches a file and a heading that exist."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "reasonaudio_metric" / "README.md",
         *sorted((ROOT / "docs").glob("*.md"))]
ORDINALS = ("first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|"
            "fourteenth|fifteenth|sixteenth|\\d+(st|nd|rd|th)")
NOTEBOOK = {"an issue number": re.compile(r"\bissues? #?\d+", re.I),
            "a pass": re.compile(rf"\b({ORDINALS}) pass\b", re.I),
            "a scratch path": re.compile(r"/tmp/"),
            "a commit": re.compile(r"(?<![0-9a-f])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,12}(?![0-9a-f])")}


def anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation but hyphens dropped, spaces as hyphens."""
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
            for heading in re.findall(r"^#+ (.+)$", text, flags=re.M)}


def test_readme_is_a_short_page_that_cites_the_paper():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 150 and "arXiv 2605.03361" in readme
    assert all((ROOT / name).is_file() for name in ("LICENSE", "CITATION.cff", "CHANGELOG.md"))
    assert "2605.03361" in (ROOT / "CITATION.cff").read_text()


def test_results_are_short_enough_to_read():
    assert len((ROOT / "docs" / "results.md").read_text().splitlines()) < 500


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_no_page_reads_as_a_lab_notebook(page):
    text = page.read_text()
    for what, pattern in NOTEBOOK.items():
        found = pattern.search(text)
        assert found is None, f"{page.name} names {what}: ...{text[max(0, found.start() - 60):found.end() + 20]}..."


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_reaches_a_file_and_a_heading(page):
    for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.exists(), f"{page.name} links {target}: no such file"
        if anchor and linked.suffix == ".md":
            assert anchor in anchors(linked), f"{page.name} links {target}: no such heading"
