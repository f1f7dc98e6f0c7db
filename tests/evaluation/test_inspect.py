"""The inspect page, as a person sees it: opened in a real headless browser (Chromium), its script run."""
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from reasonaudio.cli import main
from reasonaudio.evaluation.inspect_page import write_page

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def browser() -> str | None:
    return next((path for path in map(shutil.which, BROWSERS) if path), None)


class Page(HTMLParser):
    """The parts of a page a test reads: each query section (its attributes, whether hidden), the timelines, the
    players' sources and the line counting what is shown."""

    def __init__(self, text: str):
        super().__init__()
        self.sections, self.timelines, self.rects, self.players, self.count, self._in_count = [], 0, 0, [], "", False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "section" and "query" in attrs.get("class", ""):
            self.sections.append(attrs)
        elif tag == "svg" and attrs.get("class") == "timeline":
            self.timelines += 1
        elif tag == "rect":
            self.rects += 1
        elif tag == "audio":
            self.players.append(attrs.get("src"))
        self._in_count = attrs.get("id") == "count"

    def handle_data(self, data):
        if self._in_count:
            self.count += data

    def shown(self) -> list[dict]:
        return [s for s in self.sections if "hidden" not in s]


def rendered(page: Path, fragment: str = "") -> Page:
    """The page's DOM after its script ran, as headless Chromium dumps it."""
    done = subprocess.run([browser(), "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom",
                           f"{page.resolve().as_uri()}{fragment}"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return Page(done.stdout)


@pytest.fixture(scope="module")
def bag_run(small_corpus, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("inspect") / "bag"
    assert main(["evaluate", "--model", "bag-of-sounds", "--data", str(small_corpus), "--out", str(out), "--quiet",
                 "--bootstrap", "0"]) == 0
    return out


@pytest.mark.skipif(browser() is None, reason="no Chromium (`.ci/setup` installs it when run as root)")
def test_the_page_renders_in_a_browser_and_its_filters_change_what_is_shown(bag_run):
    page = write_page(bag_run, listen=30)
    whole = rendered(page)
    assert len(whole.sections) == 30 and len(whole.shown()) == 30 and whole.count == "30 of 30 queries shown"
    assert whole.timelines == 30 * 6 and whole.rects > whole.timelines          # every candidate's events drawn
    assert len(whole.players) == 30 * 6
    assert all((page.parent / src).is_file() for src in whole.players)       # relative links to files that exist
    order = rendered(page, "#task=order")
    assert 0 < len(order.shown()) < 30 and {s["data-task"] for s in order.shown()} == {"order"}
    assert order.count == f"{len(order.shown())} of 30 queries shown"
    wrong = rendered(page, "#outcome=wrong")
    assert {s["data-outcome"] for s in wrong.shown()} == {"wrong"}
    first = [s["data-outcome"] for s in whole.sections]
    assert first == sorted(first, key=lambda outcome: outcome != "wrong")    # the failures first


def test_the_page_caps_embeds_and_refuses_in_one_line(bag_run, tmp_path):
    page = write_page(bag_run, tmp_path / "few.html", limit=2, audio="embed")
    text = page.read_text()
    assert text.count('<section class="query') == 2 and text.count("data:audio/flac;base64,") == 2 * 6
    assert not (tmp_path / "few.audio").exists()
    none = write_page(bag_run, tmp_path / "none.html", audio="none")
    assert "<audio" not in none.read_text()
    with pytest.raises(ValueError, match="--limit must be an integer >= 1"):
        write_page(bag_run, limit=0)
    few = write_page(bag_run, tmp_path / "listen.html", listen=3)
    assert few.read_text().count("<audio") == 3 * 6 and len(list((tmp_path / "listen.audio").iterdir())) == 3 * 6
    with pytest.raises(ValueError, match="is not a result of `reasonaudio evaluate`"):
        write_page(tmp_path)


def test_a_run_whose_build_moved_is_named_and_found_with_data(bag_run, small_corpus, tmp_path, capsys):
    moved = tmp_path / "run"
    shutil.copytree(bag_run, moved)
    record = moved / "results.json"
    record.write_text(record.read_text().replace(str(small_corpus), str(tmp_path / "gone")))
    assert main(["inspect", str(moved)]) == 2
    assert "give it with --data" in capsys.readouterr().err
    assert main(["inspect", str(moved), "--data", str(small_corpus), "--out", str(tmp_path / "p.html")]) == 0
    assert (tmp_path / "p.html").is_file() and (tmp_path / "p.audio").is_dir()


def test_evaluate_again_removes_the_page_of_the_results_it_replaces(bag_run, small_corpus, tmp_path):
    run = tmp_path / "again"
    shutil.copytree(bag_run, run)
    write_page(run)
    assert (run / "inspect.html").is_file()
    assert main(["evaluate", "--model", "oracle", "--data", str(small_corpus), "--out", str(run), "--quiet",
                 "--bootstrap", "0", "--overwrite"]) == 0
    assert not (run / "inspect.html").exists() and not (run / "inspect.audio").exists()
