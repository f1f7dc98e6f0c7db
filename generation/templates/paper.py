"""The paper's text style (`--text-style paper`, the `--profile paper` default): every query a request, "Find an
audio clip that contains A and B, but does not contain C", "... with A lasting for about 20 seconds", "... in
which C and D overlap". Same roles and rules as `natural.py` (relative order only, no absolute place, as
often against temporal order as with it; tests/test_phrases.py checks every template)."""

FIND = "find an audio clip "


def _requests(table: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    return {shape: tuple(FIND + rest for rest in rests) for shape, rests in table.items()}


TEMPLATES = _requests({
    # negation
    "present-absent": (
        "that contains {a}, but does not contain {z}",
        "with {a} and without {z}",
        "without {z}, but with {a}",
    ),
    "two-present-absent": (
        "that contains {a} and {b}, but does not contain {z}",
        "with {a} and {b}, and without {z}",
        "without {z}, but with {a} and {b}",
    ),
    "present-two-absent": (
        "that contains {a}, but neither {z} nor {z2}",
        "with {a}, without {z} and without {z2}",
        "that does not contain {z} or {z2}, but contains {a}",
    ),
    # order: half the templates name the sounds in temporal order
    "before": (
        "with {a}, then {b}",
        "with {a} followed by {b}",
        "with {b} after {a}",
        "with {b}, preceded by {a}",
    ),
    "chain": (                                   # each order of naming the three sounds once
        "with {a}, then {b}, and then {c}",
        "with {a}, then {c}, with {b} in between",
        "with {b} after {a} and before {c}",
        "with {b}, then {c}, both after {a}",
        "with {c}, after {a} and then {b}",
        "with {c}, preceded by {b}, and before that {a}",
    ),
    # overlap
    "overlap": (
        "in which {a} and {b} overlap",
        "with {a} and {b} at the same time",
        "with {b} overlapping with {a}",
    ),
    "apart": (
        "in which {a} and {b} occur at different times",
        "with {a} and {b} at different times",
        "with {b}, and {a} at another time",
        "with {a} and {b}, heard separately",
    ),
    "overlap-before": (
        "with {a} and {b} at the same time, and {c} after {a}",
        "with {c} after {a}, and {b} overlapping with {a}",
        "in which {a} and {b} overlap, followed by {c}",
        "with {c}, preceded by {a} overlapping with {b}",
    ),
    "apart-before": (
        "with {a} and {b} at different times, and {c} after {a}",
        "with {c} after {a}, and {b} at a different time from {a}",
        "with {c}, preceded by {a}, and {b} at a separate time from {a}",
        "with {a}, then {c}, and {b} at a separate time from {a}",
    ),
    "overlap-after": (
        "with {c}, then {a} and {b} at the same time",
        "in which {a} and {b} overlap after {c}",
        "with {a} overlapping with {b}, preceded by {c}",
        "with {b} at the same time as {a}, and {c} before {a}",
    ),
    "apart-after": (
        "with {c}, then {a}, and {b} at a different time from {a}",
        "with {a} after {c}, and {b} at a separate time from {a}",
        "with {a} and {b} at different times, and {a} after {c}",
        "with {a}, preceded by {c}, and {b} at a separate time from {a}",
    ),
    # duration
    "longer": (
        "with {a} lasting much longer than {b}",
        "with {b}, much shorter than {a}",
        "with {b}, and {a} lasting much longer",
    ),
    "longer-chain": (
        "with {a} lasting much longer than {b}, and {b} much longer than {c}",
        "with {c}, {b} lasting much longer, and {a} much longer still",
        "with {b}, much shorter than {a} but much longer than {c}",
    ),
    "lasts": (
        "with {a} lasting for about {n} seconds",
        "that contains about {n} seconds of {a}",
        "with {a} heard for about {n} seconds",
    ),
    # mix
    "before-absent": (
        "with {a}, then {b}, but without {z}",
        "that contains {b} after {a}, but does not contain {z}",
        "without {z}, with {b} preceded by {a}",
        "with {a} followed by {b}, and no trace of {z}",
    ),
    "overlap-absent": (
        "that contains {a} and {b} at the same time, but does not contain {z}",
        "in which {a} and {b} overlap, without {z}",
        "without {z}, with {b} overlapping with {a}",
    ),
    "apart-absent": (
        "that contains {a} and {b} at different times, but does not contain {z}",
        "with {a}, and {b} at another time, without {z}",
        "without {z}, with {b} and {a} heard separately",
    ),
    "longer-absent": (
        "that contains {a} lasting much longer than {b}, but does not contain {z}",
        "with {b}, much shorter than {a}, and without {z}",
        "without {z}, with {b}, and {a} lasting much longer",
    ),
    "lasts-present-absent": (
        "that contains {a} and {b}, but does not contain {z}, with {a} lasting for about {n} seconds",
        "with {b} and about {n} seconds of {a}, without {z}",
        "without {z}, but with {b}, and {a} lasting for about {n} seconds",
    ),
    "before-overlap-absent": (
        "with {a}, then {b} and {c} at the same time, but without {z}",
        "in which {b} and {c} overlap after {a}, without {z}",
        "with {b} overlapping with {c}, preceded by {a}, and no trace of {z}",
        "that contains {a} followed by {b} together with {c}, but does not contain {z}",
    ),
    "before-apart-absent": (
        "with {a}, then {b}, and {c} at a different time from {b}, without {z}",
        "in which {b} and {c} occur at different times, {b} after {a}, without {z}",
        "with {b}, preceded by {a}, and {c} at a separate time from {b}, but not {z}",
        "with {a} followed by {b}, and {c} heard separately from {b}, and no trace of {z}",
    ),
    "after-overlap-absent": (
        "with {b} and {c} at the same time, then {a}, without {z}",
        "with {a} after {b} overlapping with {c}, but not {z}",
        "with {a}, preceded by {b} and {c} at the same time, and no trace of {z}",
        "in which {c} and {b} overlap, followed by {a}, without {z}",
    ),
    # the four-sound mix: "A for about N seconds, then B, and then C and D overlap"
    "lasts-before-overlap": (
        "with {a} lasting for about {n} seconds, then {b}, and then {c} and {d} overlapping",
        "in which {c} and {d} overlap, preceded by {b}, and before that about {n} seconds of {a}",
        "with {b} after {a} lasting for about {n} seconds, and then {c} at the same time as {d}",
    ),
    "lasts-before-apart": (
        "with {a} lasting for about {n} seconds, then {b}, and then {c} and {d} at different times",
        "in which {c} and {d} occur at different times, preceded by {b}, and before that about {n} seconds of {a}",
        "with {b} after {a} lasting for about {n} seconds, and then {c}, with {d} at another time",
    ),
    "lasts-after-overlap": (
        "with {b}, then {a} lasting for about {n} seconds, and {c} and {d} at the same time after {b}",
        "with {a} lasting for about {n} seconds after {b}, and {c} overlapping with {d} after {b}",
        "with {c} and {d} at the same time and about {n} seconds of {a}, both preceded by {b}",
    ),
    "lasts-after-apart": (
        "with {b}, then {a} lasting for about {n} seconds, and {c} and {d} at different times after {b}",
        "with {a} lasting for about {n} seconds after {b}, and {c} after {b}, with {d} at another time",
        "with {c} and {d} at different times and about {n} seconds of {a}, both preceded by {b}",
    ),
    "after-apart-absent": (
        "with {b}, then {a}, and {c} at a different time from {b}, without {z}",
        "with {a} after {b}, and {c} at a separate time from {b}, but not {z}",
        "in which {b} and {c} occur at different times, {a} after {b}, without {z}",
        "with {a}, preceded by {b}, and {c} heard separately from {b}, and no trace of {z}",
    ),
})
