"""`reasonaudio inspect RUN`: one static HTML page to see what a model got wrong, query by query.

The page reads an `evaluate` run (its results.json and per_query.parquet) and the build it scored: per query its
text, its candidates each drawn as a timeline of its events (SVG), a player for each clip, the model's scores, the
positive, the hard negatives and the clip ranked first, and what each wrong candidate breaks (`broken`, the
relevance function's taxonomy). Filters (task, shape, depth, outcome) show and hide queries in the browser; they
also read and write the page's address (`#task=order&outcome=wrong`). Nothing is fetched: the page opens from disk
with no server, its clips written beside it (`PAGE.audio/`, relative links) or embedded.
"""
from __future__ import annotations

import base64
import colorsys
import hashlib
import html
import json
from pathlib import Path

from reasonaudio.core.records import constraint_atoms
from reasonaudio.core.relations import Event, broken

MAX_QUERIES = 200              # queries a page shows by default: the failures first
LISTEN_QUERIES = 20            # queries whose clips get players by default (a 10 s clip is 0.1 to 0.3 MB of FLAC)
MAX_PAGE_BYTES = 20_000_000    # an embedded page larger than this is refused: link the clips instead
AUDIO_MODES = ("link", "embed", "none")
TIMELINE_WIDTH, ROW_HEIGHT = 420, 14

STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 0 1.5em 2em; color: #222; }
header { position: sticky; top: 0; background: #fff; padding: .5em 0; border-bottom: 1px solid #ccc; z-index: 1; }
form label { margin-right: 1em; }
section.query { border: 1px solid #ddd; border-radius: 6px; margin: 1em 0; padding: .5em 1em; }
section.query.wrong { border-left: 6px solid #c0392b; }
section.query.right { border-left: 6px solid #27ae60; }
.text { font-size: 1.15em; margin: .2em 0; }
ol.candidates { list-style: none; padding: 0; }
li.candidate { display: grid; grid-template-columns: 14em 5em 430px 1fr; gap: .6em; align-items: center;
  padding: .25em 0; border-top: 1px solid #f0f0f0; }
li.positive { background: #eafaf1; }
li.chosen { outline: 2px solid #c0392b; }
li.positive.chosen { outline-color: #27ae60; }
.badge { display: inline-block; font-size: .8em; padding: 0 .4em; border-radius: 3px; margin-right: .2em; color: #fff; }
.badge.positive { background: #27ae60; } .badge.hard { background: #8e44ad; } .badge.chosen { background: #c0392b; }
.score { font-family: monospace; text-align: right; }
.breaks { color: #c0392b; font-size: .9em; }
audio { height: 28px; max-width: 100%; }
"""

SCRIPT = """
const filters = ["task", "shape", "depth", "outcome"];
function apply() {
  const wanted = Object.fromEntries(filters.map(f => [f, document.getElementById(f).value]));
  let shown = 0;
  for (const section of document.querySelectorAll("section.query")) {
    const keep = filters.every(f => wanted[f] === "" || section.dataset[f] === wanted[f]);
    section.hidden = !keep;
    shown += keep;
  }
  document.getElementById("count").textContent = shown + " of " + document.querySelectorAll("section.query").length
    + " queries shown";
  const hash = filters.filter(f => wanted[f] !== "").map(f => f + "=" + encodeURIComponent(wanted[f])).join("&");
  history.replaceState(null, "", hash ? "#" + hash : location.pathname);
}
for (const [key, value] of new URLSearchParams(location.hash.slice(1))) {
  const select = document.getElementById(key);
  if (select) select.value = value;
}
for (const f of filters) document.getElementById(f).addEventListener("change", apply);
apply();
"""


def colour(label: str) -> str:
    """A label's colour, the same on every page (a hue from its hash)."""
    hue = int(hashlib.sha256(label.encode()).hexdigest()[:4], 16) / 0xFFFF
    red, green, blue = colorsys.hls_to_rgb(hue, 0.55, 0.6)
    return f"#{int(red * 255):02x}{int(green * 255):02x}{int(blue * 255):02x}"


def timeline_svg(events: list[Event], seconds: float) -> str:
    """A clip's events as an SVG timeline: a row per event, in onset order, over [0, seconds]."""
    events = sorted(events, key=lambda e: (e.onset, e.label))
    height = ROW_HEIGHT * max(1, len(events)) + 4
    scale = TIMELINE_WIDTH / max(seconds, 1e-9)
    rows = []
    for row, event in enumerate(events):
        x, width, y = event.onset * scale, max(1.0, event.seconds * scale), 2 + row * ROW_HEIGHT
        name = html.escape(f"{event.label} {event.onset:.1f}-{event.offset:.1f} s")
        rows.append(f'<rect x="{x:.1f}" y="{y}" width="{width:.1f}" height="{ROW_HEIGHT - 3}" rx="2" '
                    f'fill="{colour(event.label)}"><title>{name}</title></rect>'
                    f'<text x="{min(x + 2, TIMELINE_WIDTH - 60):.1f}" y="{y + ROW_HEIGHT - 5}" font-size="9">'
                    f'{html.escape(event.label)}</text>')
    return (f'<svg class="timeline" width="{TIMELINE_WIDTH}" height="{height}" viewBox="0 0 {TIMELINE_WIDTH} {height}" '
            f'role="img"><rect width="{TIMELINE_WIDTH}" height="{height}" fill="#f7f7f7"/>{"".join(rows)}</svg>')


def shown_queries(rows: list[dict], limit: int) -> list[dict]:
    """The per-query rows a page shows: those whose first-ranked clip is wrong first, then the others, each in
    the run's order, at most `limit`."""
    wrong = [row for row in rows if row["chosen"] != row["positive"]]
    return (wrong + [row for row in rows if row["chosen"] == row["positive"]])[:limit]


def _options(name: str, values) -> str:
    choices = "".join(f'<option value="{html.escape(str(v))}">{html.escape(str(v))}</option>'
                      for v in dict.fromkeys(values))
    return f'<label>{name} <select id="{name}"><option value="">all</option>{choices}</select></label>'


def _candidate(clip: dict, query: dict, row: dict, score: float, source: str | None, seconds: float) -> str:
    clip_id, atoms = clip["clip_id"], query["atoms"]
    roles = [("positive", "positive")] * (clip_id == query["positive"]) + \
        [("hard", "hard negative")] * (clip_id in query["hard_negatives"]) + [("chosen", "ranked first")] * (clip_id == row["chosen"])
    badges = "".join(f'<span class="badge {kind}">{said}</span>' for kind, said in roles)
    kinds = broken(atoms, clip["events"])
    breaks = f'<div class="breaks">breaks: {", ".join(kinds)}</div>' if kinds else ""
    player = f'<audio controls preload="none" src="{html.escape(source)}"></audio>' if source else ""
    classes = " ".join(["candidate", *(kind for kind, _ in roles)])
    return (f'<li class="{classes}" data-clip="{html.escape(clip_id)}"><div>{badges}<div><code>{html.escape(clip_id)}'
            f'</code></div></div><div class="score">{score:.4f}</div><div>{timeline_svg(clip["events"], seconds)}</div>'
            f'<div>{player}{breaks}</div></li>')


def _query(row: dict, query: dict, clips: dict[str, dict], sources: dict[str, str], seconds: float) -> str:
    outcome = "right" if row["chosen"] == row["positive"] else "wrong"
    attributes = {"task": row["task"], "shape": query["shape"], "depth": query["depth"], "outcome": outcome}
    data = " ".join(f'data-{key}="{html.escape(str(value))}"' for key, value in attributes.items())
    verdict = ("ranked its positive first" if outcome == "right" else
               f"ranked {html.escape(row['chosen'])} first, which breaks: {html.escape(', '.join(row['broken']) or '—')}")
    candidates = "".join(_candidate(clips[clip_id], query, row, score, sources.get(clip_id), seconds)
                         for clip_id, score in sorted(zip(row["candidates"], row["scores"]), key=lambda pair: -pair[1]))
    return (f'<section class="query {outcome}" id="{html.escape(row["query_id"])}" {data}>'
            f'<h2>{html.escape(row["query_id"])} · {html.escape(row["task"])} · {html.escape(query["shape"])} · '
            f'depth {query["depth"]}</h2><p class="text">{html.escape(query["text"])}</p>'
            f'<p class="verdict">The model {verdict}; the positive ranks {row["positive_rank"]:g} of '
            f'{len(row["candidates"])}.</p><ol class="candidates">{candidates}</ol></section>')


def render_page(title: str, summary: str, rows: list[dict], queries: dict[str, dict], clips: dict[str, dict],
                sources: dict[str, str], seconds: float) -> str:
    """The page's HTML.

    Args:
        title, summary: its heading and the line under it.
        rows: the per-query rows shown (`shown_queries`), each with its candidates, scores, chosen and broken.
        queries: each shown query's row of the build (text, shape, depth, positive, hard negatives, atoms).
        clips: each shown candidate's clip id and events.
        sources: each clip's audio address (a relative path or a data URI); a clip without one has no player.
        seconds: the clips' length (the timelines' axis).

    Returns:
        A complete HTML document.
    """
    shown = [queries[row["query_id"]] for row in rows]
    filters = (_options("task", (r["task"] for r in rows)) + _options("shape", (q["shape"] for q in shown))
               + _options("depth", sorted(q["depth"] for q in shown)) + _options("outcome", ("wrong", "right")))
    body = "".join(_query(row, queries[row["query_id"]], clips, sources, seconds) for row in rows)
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
            f'<style>{STYLE}</style></head><body><header><h1>{html.escape(title)}</h1><p>{html.escape(summary)}</p>'
            f'<form id="filters">{filters}</form><p id="count"></p></header><main>{body}</main>'
            f'<script>{SCRIPT}</script></body></html>\n')


def _run_tables(run: Path) -> tuple[dict, list[dict]]:
    """A run's record and per-query rows, or a one-line error naming the file."""
    import pyarrow.parquet as pq

    try:
        record = json.loads((run / "results.json").read_text())
        data, split = record["data"], record["parameters"]["split"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{run / 'results.json'} is not a result of `reasonaudio evaluate` ({type(error).__name__}): "
                         "give an evaluate --out folder") from None
    try:
        rows = pq.read_table(run / "per_query.parquet").to_pylist()
    except (OSError, ValueError) as error:
        raise ValueError(f"{run / 'per_query.parquet'} is missing or unreadable ({type(error).__name__})") from None
    if rows and "chosen" not in rows[0]:
        raise ValueError(f"{run / 'per_query.parquet'} has no chosen clip per query (a run of an earlier version): "
                         "evaluate it again to inspect it")
    return {**record, "data": data, "split": split}, rows


def _check_same_build(data: str, split: str, record: dict) -> None:
    """The build at `data` is the one the run scored (its plan fingerprint), or a one-line error."""
    from reasonaudio_dataset.identity import read_record

    found = read_record(data, split).get("fingerprint")
    if found is None:
        raise ValueError(f"cannot read split {split} of the build the run scored, {data} (moved, or named relative to "
                         "another working folder?): give it with --data")
    expected = record.get("build", {}).get("fingerprint")
    if expected is not None and found != expected:
        raise ValueError(f"{data} (split {split}) is build {found}, the run scored build {expected}: give the build "
                         "it scored with --data")


def write_page(run: str | Path, out: str | Path | None = None, limit: int = MAX_QUERIES, audio: str = "link",
               data: str | None = None, listen: int = LISTEN_QUERIES) -> Path:
    """Write the inspect page of an `evaluate` run.

    Args:
        run: the run's folder (evaluate's --out).
        out: the page (default: RUN/inspect.html); `link` writes the clips into OUT's stem + ".audio/".
        limit: the most queries shown, those the model gets wrong first.
        audio: "link" (clips as FLAC files beside the page), "embed" (inside the page; refused above 20 MB)
            or "none" (no players).
        data: the build the run scored, where it is not where the run says (a folder given relative to another
            working folder, a copy); checked to be that build.
        listen: the first queries shown whose candidates get players (the others are drawn and scored alone).

    Returns:
        The page's path.
    """
    from datasets import Audio

    from reasonaudio_dataset.loading import corpus_of, load_table

    if audio not in AUDIO_MODES:
        raise ValueError(f"--audio must be one of {AUDIO_MODES}, got {audio!r}")
    for name, value, least in (("--limit", limit, 1), ("--listen", listen, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ValueError(f"{name} must be an integer >= {least}, got {value!r}")
    run = Path(run)
    record, rows = _run_tables(run)
    page = Path(out) if out is not None else run / "inspect.html"
    rows = shown_queries(rows, limit)
    wanted = {clip for row in rows for clip in row["candidates"]}
    heard = {clip for row in rows[:listen] for clip in row["candidates"]} if audio != "none" else set()
    data, split, acoustics = data or record["data"], record["split"], record["parameters"].get("acoustics")
    acoustics = None if acoustics == "all" else acoustics      # the per-query rows of `all` are the first (clean)
    _check_same_build(data, split, record)
    queries = {}
    for query in load_table(data, "queries", split).to_list():
        queries[query["query_id"]] = {**query, "atoms": constraint_atoms(query["constraint"])}
    corpus = load_table(data, corpus_of(data, split, acoustics), split).cast_column("audio", Audio(decode=False))
    corpus = corpus.select([i for i, clip_id in enumerate(corpus["clip_id"]) if clip_id in wanted])
    clips, sources, seconds = {}, {}, 0.0
    folder = page.with_name(page.stem + ".audio")
    for clip in corpus:
        clips[clip["clip_id"]] = {"clip_id": clip["clip_id"], "events": [Event(**e) for e in clip["events"]]}
        seconds = max(seconds, clip["duration"])
        name = clip["clip_id"].replace("/", "_") + ".flac"
        if clip["clip_id"] not in heard:
            continue
        if audio == "link":
            folder.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(clip["audio"]["bytes"])
            sources[clip["clip_id"]] = f"{folder.name}/{name}"
        elif audio == "embed":
            sources[clip["clip_id"]] = "data:audio/flac;base64," + base64.b64encode(clip["audio"]["bytes"]).decode()
    missing = sorted(wanted - set(clips))
    if missing:
        raise ValueError(f"{data} (split {split}) lacks clip {missing[0]} that the run scored: inspect the build "
                         "the run was made on")
    wrong = sum(row["chosen"] != row["positive"] for row in rows)
    title = f"{record.get('model', '?')} on {data} ({split}{', ' + acoustics if acoustics else ''})"
    players = f"players for the first {min(listen, len(rows))}" if heard else "no players"
    summary = (f"{len(rows)} queries shown, {wrong} of them ranking a wrong clip first (those first), {players}; "
               f"scores from {run}. Each candidate: its events over {seconds:g} s, its score, what it breaks of the "
               "query.")
    text = render_page(title, summary, rows, queries, clips, sources, seconds)
    if audio == "embed" and len(text.encode()) > MAX_PAGE_BYTES:
        raise ValueError(f"the page with its clips embedded would be {len(text.encode()) / 1e6:.0f} MB (> "
                         f"{MAX_PAGE_BYTES / 1e6:.0f} MB): use --audio link, or fewer queries (--limit)")
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(text, encoding="utf-8")
    return page
