"""Events against audio steps: the frame targets that the `small` model's event head and the `detector`
learn from a split's strong labels, and detection quality by DCASE's own toolkit (sed_eval).

The train split's `events` column says when each sound plays; a head that learns to read that from the
audio is taught recognition and timing far faster than by the contrastive signal alone, and a detector
that reads it well enough hears what the relevance function needs.
"""
from __future__ import annotations

import warnings

import torch

COLLAR = 0.2            # event-based F1: onsets within 200 ms, offsets within max(200 ms, 20 % of the length)
SEGMENT_SECONDS = 1.0   # segment-based F1: activity compared per 1 s segment


def steps_of(samples: int, hop: int) -> int:
    """The trunk's steps for a clip of `samples`: centred STFT frames, pooled twice by 2 (80 ms at 16 kHz)."""
    return (samples // hop + 1) // 2 // 2


def activity(events, samples: int, rate: int, hop: int, column: dict[str, int]) -> torch.Tensor:
    """(steps x labels) 0/1: a label is on in a step when one of its sounds covers at least half of it."""
    steps = steps_of(samples, hop)
    seconds = samples / rate / steps
    starts = torch.arange(steps) * seconds
    on = torch.zeros(steps, len(column))
    for event in events:
        covered = (torch.clamp(torch.minimum(starts + seconds, torch.tensor(event["offset"])) -
                               torch.maximum(starts, torch.tensor(event["onset"])), min=0))
        on[covered >= seconds / 2, column[event["label"]]] = 1.0
    return on


def detection_scores(references, estimates, labels) -> dict[str, float]:
    """DCASE's detection metrics (sed_eval) of `estimates` against `references` (per clip, in the same order,
    its events: objects with label, onset and offset): event-based F1 with a 200 ms collar on onsets and
    offsets (offsets: or 20 % of the event's length) and its error rate, and segment-based F1 and error
    rate over 1 s segments; micro-averaged over events, as DCASE reports them."""
    with warnings.catch_warnings():   # the `models` extra, on use; dcase_util imports the deprecated pkg_resources
        warnings.simplefilter("ignore")
        import dcase_util
        import sed_eval

    def listing(events, clip: str):
        return dcase_util.containers.MetaDataContainer(
            [{"filename": clip, "event_label": e.label, "onset": float(e.onset), "offset": float(e.offset)}
             for e in events])

    labels = sorted(labels)
    event_based = sed_eval.sound_event.EventBasedMetrics(labels, t_collar=COLLAR, percentage_of_length=0.2)
    segment_based = sed_eval.sound_event.SegmentBasedMetrics(labels, time_resolution=SEGMENT_SECONDS)
    for index, (reference, estimate) in enumerate(zip(references, estimates, strict=True)):
        reference, estimate = listing(reference, f"clip{index}"), listing(estimate, f"clip{index}")
        event_based.evaluate(reference, estimate)
        segment_based.evaluate(reference, estimate)
    events, segments = event_based.results_overall_metrics(), segment_based.results_overall_metrics()
    return {"event_f1": events["f_measure"]["f_measure"], "event_error_rate": events["error_rate"]["error_rate"],
            "segment_f1": segments["f_measure"]["f_measure"],
            "segment_error_rate": segments["error_rate"]["error_rate"],
            "collar_seconds": COLLAR, "segment_seconds": SEGMENT_SECONDS}
