"""Hand-written rules on plans alone, in both directions: does any statistic of a clip, of a group's structure or
of which candidate is busiest find the positive? Nothing rendered, so a construction change is checked in a
minute (the learned adversaries: `bench/plan_adversaries.py`; the whole check: `reasonaudio baselines`).

    python bench/plan_rules.py [--source SPEC] [--queries 200] [--seeds 0] [--profile NAME]

Each rule scores every candidate of a group from its timeline (and, for the busyness rules, the query's named
sounds), and is scored as the metric scores (the positive first; ties by their expectation). Printed per task and
shape: each rule's accuracy and the paired bootstrap 95 % interval of its difference from its tie (seeds, then
each seed's queries, as `plan_adversaries.interval`), flagged `**` when the interval excludes it, above or below:

* query-blind, tie 1 / candidates, each as `+` (most first) and `-` (fewest first): `member` (how many
  candidates share the clip's times: every version of a member keeps its base's timeline, so this reads the
  group's structure), `continuous` (continuous sounds, the bank's kind), `sounding` (seconds any sound plays),
  `events`, `level` (summed gain), `cropped` (discrete sounds played shorter than their recording), `looped`
  (continuous sounds played longer than theirs), `recorded` (its sounds' recordings' summed length), `shared`
  (the mean Jaccard similarity of the clip's classes to each other candidate's: how much the group shares them);
* text-aware, tie = counting the named sounds present (ties by expectation): `fewest-unnamed`
  (ties broken by the fewest unnamed sounds) and `fewest-events` (by the fewest events);
* name-blind, knowing which sounds the query names but not which it excludes, tie = the count tie (one over
  the candidates holding as many named sounds as the positive, `counting.group_count_tie`), each among
  those candidates: `renaming` (the best such rule: one over the candidates whose named sounds the
  positive's become under a renaming of the named sounds that maps the group's patterns on themselves),
  `rarest-named` (the candidate holding the named sound fewest candidates hold) and `commonest-least` (the
  candidate whose commonest named sound is held least).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter, defaultdict
from itertools import permutations
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reasonaudio.generation.config import GenerateConfig                                              # noqa: E402
from reasonaudio.generation.pipeline import plan_split                                                # noqa: E402
from reasonaudio.core.relations import mentioned, sounding_seconds                              # noqa: E402
from reasonaudio.evaluation.systems.counting import group_count_tie                                   # noqa: E402
from plan_adversaries import interval                                                     # noqa: E402


CROPPED_BY = 0.02    # seconds: a discrete sound played shorter than its recording by more is cut off, a
                     # continuous one played longer by more loops


def clip_statistics(events, sounds: dict) -> dict[str, float]:
    """`sounds`: source_id -> its AtomicSound (the bank's kind and recording length)."""
    discrete = [e for e in events if sounds[e.source_id].kind == "discrete"]
    continuous = [e for e in events if sounds[e.source_id].kind != "discrete"]
    return {"continuous": len(continuous), "sounding": sounding_seconds(events), "events": len(events),
            "level": sum(e.gain_db for e in events),
            "cropped": sum(e.seconds < sounds[e.source_id].seconds - CROPPED_BY for e in discrete),
            "looped": sum(e.seconds > sounds[e.source_id].seconds + CROPPED_BY for e in continuous),
            "recorded": sum(sounds[e.source_id].seconds for e in events)}


def rule_scores(plan, sounds: dict) -> dict[str, np.ndarray]:
    """rule -> one score per candidate (higher ranks first)."""
    group = [candidate.events for candidate in plan.candidates]
    named = set(mentioned(plan.atoms))
    times = [tuple(sorted((e.onset, e.offset) for e in events)) for events in group]
    member = np.array([times.count(t) for t in times], dtype=float)
    classes = [{e.label for e in events} for events in group]
    shared = np.array([np.mean([len(mine & theirs) / len(mine | theirs) for j, theirs in enumerate(classes) if j != i])
                       for i, mine in enumerate(classes)])
    stats = [clip_statistics(events, sounds) for events in group]
    scores = {"member": member, "shared": shared}
    for key in ("continuous", "sounding", "events", "level", "cropped", "looped", "recorded"):
        scores[key] = np.array([s[key] for s in stats], dtype=float)
    for key in list(scores):
        scores[f"-{key}"], scores[f"+{key}"] = -scores[key], scores.pop(key)
    bag = np.array([len(named & {e.label for e in events}) for events in group], dtype=float)
    unnamed = np.array([len({e.label for e in events} - named) for events in group], dtype=float)
    scores["bag"] = bag
    scores["fewest-unnamed"] = bag - 1e-3 * unnamed
    scores["fewest-events"] = bag - 1e-3 * np.array([len(events) for events in group], dtype=float)
    held = [frozenset(named & {e.label for e in events}) for events in group]
    holding = Counter(label for labels in held for label in labels)
    positive = [c.clip_id for c in plan.candidates].index(plan.positive)
    level = np.array([len(labels) == len(held[positive]) for labels in held], dtype=float)   # the count tie's
    for name, pick in (("rarest-named", min), ("commonest-least", max)):                   # candidates, then
        scores[name] = level - 1e-3 * np.array([pick((holding[x] for x in labels), default=0) for labels in held])
    return scores


def renaming_tie(plan) -> float:
    """1 / the candidates a rule blind to which named sound is which cannot tell from the positive: above the
    count tie, which named sounds a candidate holds, set against the group, gives the positive away."""
    named = sorted(set(mentioned(plan.atoms)))
    held = [frozenset(named) & {e.label for e in c.events} for c in plan.candidates]
    positive = held[[c.clip_id for c in plan.candidates].index(plan.positive)]
    patterns, images = Counter(held), set()
    for image in permutations(named):
        rename = dict(zip(named, image))
        if Counter(frozenset(rename[x] for x in labels) for labels in held) == patterns:
            images.add(frozenset(rename[x] for x in positive))
    return 1 / sum(labels in images for labels in held)


def accuracy(scores: np.ndarray, positive: int) -> float:
    top = np.isclose(scores, scores.max(), rtol=0, atol=1e-9)
    return float(top[positive] / top.sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", default="synthetic:", help="sound source (default: synthetic:)")
    parser.add_argument("--queries", type=int, default=200, help="queries per task (default: 200)")
    parser.add_argument("--seeds", default="0", help="comma-separated build seeds, pooled (default: 0)")
    parser.add_argument("--profile", help="a generate profile (e.g. paper)")
    parser.add_argument("--split", default="test", help="split to plan (default: test)")
    args = parser.parse_args()

    started = time.perf_counter()
    results, cells, row, seed_of = defaultdict(list), defaultdict(list), 0, []
    for seed in map(int, args.seeds.split(",")):
        with tempfile.TemporaryDirectory() as scratch:
            options = dict(source=args.source, out=scratch, split=args.split, queries_per_task=args.queries, seed=seed,
                           sample_rate=16000, progress=False)
            config = GenerateConfig.from_profile(args.profile, **options) if args.profile else GenerateConfig(**options)
            plan = plan_split(config)
        sounds = {s.source_id: s for s in plan.bank.sounds}
        for query in plan.queries:
            positive = [c.clip_id for c in query.candidates].index(query.positive)
            for name, scores in rule_scores(query, sounds).items():
                results[name].append(accuracy(scores, positive))
            results["chance"].append(1 / len(query.candidates))
            results["renaming"].append(renaming_tie(query))
            results["count tie"].append(group_count_tie(set(mentioned(query.atoms)), [c.events for c in query.candidates], positive))
            cells[(query.task, "")].append(row)
            cells[(query.task, query.shape)].append(row)
            seed_of.append(seed)
            row += 1
    results, seed_of = {name: np.asarray(values) for name, values in results.items()}, np.asarray(seed_of)
    blind = [name for name in results if name[0] in "+-"]
    rng = np.random.default_rng(0)
    print(f"plans of {args.source} ({args.profile or 'default'}), seeds {args.seeds}: {row} queries "
          f"({time.perf_counter() - started:.0f} s). Accuracy (%); ** the paired 95 % interval of rule - tie "
          f"excludes 0 (above or below)\n")
    frequency = ["renaming", "rarest-named", "commonest-least"]
    header = ["task / shape", "n"] + blind + ["bag", "fewest-unnamed", "fewest-events", "count tie"] + frequency
    print("| " + " | ".join(header) + " |\n|" + "---|" * len(header))
    flagged = []
    for (task, shape), members in sorted(cells.items(), key=lambda kv: (kv[0][0], kv[0][1] != "", kv[0][1])):
        members = np.asarray(members)
        line = [f"{task}/{shape}" if shape else task, str(len(members))]
        for name in header[2:]:
            tie = results["chance" if name in blind else "count tie" if name in frequency else "bag"][members]
            value = results[name][members]
            mark = ""
            if name not in ("bag", "count tie") and len(members) >= 30:
                low, high = interval(value - tie, seed_of[members], rng)
                if low > 0 or high < 0:
                    mark = "**"
                    flagged.append(f"{task}/{shape or '*'} {name} {100 * value.mean():.1f} vs {100 * tie.mean():.1f} "
                                   f"[{100 * low:+.1f}, {100 * high:+.1f}]")
            line.append(f"{100 * value.mean():.1f}{mark}")
        print("| " + " | ".join(line) + " |")
    print("\nflagged (n >= 30):" + ("".join(f"\n  {f}" for f in flagged) if flagged else " none"))


if __name__ == "__main__":
    main()
