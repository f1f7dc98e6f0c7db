"""The paper's text style (`--text-style paper`, the `--profile paper` default): every query a request, "Find an
audio clip that contains A and B, but does not contain C", "... with A lasting for about 20 seconds", "... in
which C and D overlap". Same roles and rules as `natural.py` (relative order only, no absolute place and no
adjacency; each ordered or compared pair named in its own direction in exactly half of a shape's templates; an
absence joined to a relation is its own clip-level clause: "without Z, with ..." first, or "but does not contain
Z" / "and no trace of Z anywhere in the clip" last; tests/core/test_phrases.py checks every template)."""

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
        "with {a}, and later {b}",
        "with {b} after {a}",
        "with {b}, and {a} earlier",
    ),
    "chain": (                                   # each order of naming the three sounds once
        "with {a}, then {b}, and then {c}",
        "with {a}, then {c}, with {b} in between",
        "with {b} after {a} and before {c}",
        "with {b}, then {c}, both after {a}",
        "with {c}, {a} earlier, and {b} in between",
        "with {c}, {b} earlier, and {a} earlier still",
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
        "with {a} and {b}, heard at separate times",
    ),
    "overlap-before": (
        "with {b} at the same time as {a}, and {c} after {a}",
        "with {c} later than {a}, and {a} overlapping with {b}",
        "in which {a} and {b} overlap, and {c} after {a}",
        "with {c} after {a}, and {b} at the same time as {a}",
    ),
    "apart-before": (
        "with {b} at a different time from {a}, and {c} after {a}",
        "with {a} and {b} at different times, and {a} earlier than {c}",
        "with {c} after {a}, and {b} at a separate time from {a}",
        "with {c} later than {a}, and {a} and {b} at different times",
    ),
    "overlap-after": (
        "with {b} at the same time as {a}, and {c} before {a}",
        "with {c} before {a}, and {a} overlapping with {b}",
        "in which {a} and {b} overlap, and {a} after {c}",
        "with {c} earlier than {a}, and {b} at the same time as {a}",
    ),
    "apart-after": (
        "with {b} at a different time from {a}, and {c} before {a}",
        "with {c} before {a}, and {a} and {b} at different times",
        "with {a} and {b} at different times, and {a} after {c}",
        "with {c} earlier than {a}, and {b} at a separate time from {a}",
    ),
    # duration
    "longer": (
        "with {a} lasting much longer than {b}",
        "with {b}, much shorter than {a}",
        "that contains {a} going on far longer than {b}",
        "with {b}, and {a} lasting much longer",
    ),
    "longer-chain": (                            # each order of naming the three sounds once
        "with {a} lasting much longer than {b}, and {c} much shorter still",
        "with {c}, {b} lasting much longer, and {a} much longer still",
        "with {b}, much shorter than {a} but much longer than {c}",
        "with {b} lasting much longer than {c} but much shorter than {a}",
        "that contains {a} and {c}, respectively much longer and much shorter than {b}",
        "with {c} and {a}, much shorter and much longer than {b} respectively",
    ),
    "lasts": (
        "with {a} lasting for about {n} seconds",
        "that contains about {n} seconds of {a}",
        "with {a} heard for about {n} seconds",
    ),
    # mix
    "before-absent": (
        "with {a}, then {b}, and no trace of {z} anywhere in the clip",
        "that contains {b} after {a}, but does not contain {z}",
        "without {z}, with {b} some time after {a}",
        "that does not contain {z}, but contains {a}, and later {b}",
    ),
    "overlap-absent": (
        "that contains {a} and {b} at the same time, but does not contain {z}",
        "in which {a} and {b} overlap, and which does not contain {z}",
        "without {z}, with {b} overlapping with {a}",
    ),
    "apart-absent": (
        "that contains {a} and {b} at different times, but does not contain {z}",
        "with {a}, and {b} at another time, and no trace of {z} anywhere in the clip",
        "without {z}, with {b} and {a} at separate times",
    ),
    "longer-absent": (
        "that contains {a} lasting much longer than {b}, but does not contain {z}",
        "with {b}, much shorter than {a}, and no trace of {z} anywhere in the clip",
        "without {z}, but with {a} going on far longer than {b}",
        "without {z}, with {b}, and {a} lasting much longer",
    ),
    "lasts-present-absent": (
        "that contains {b}, and {a} lasting for about {n} seconds, but does not contain {z}",
        "with {b} and about {n} seconds of {a}, and no trace of {z} anywhere in the clip",
        "without {z}, but with {b}, and {a} lasting for about {n} seconds",
    ),
    "before-overlap-absent": (
        "with {b} after {a}, and {c} at the same time as {b}, and no trace of {z} anywhere in the clip",
        "without {z}, with {a} earlier than {b}, and {b} overlapping with {c}",
        "in which {b} and {c} overlap, with {b} after {a}, and which does not contain {z}",
        "that contains {a} some time before {b}, and {b} together with {c}, but does not contain {z}",
    ),
    "before-apart-absent": (
        "with {b} after {a}, and {c} at a different time from {b}, and no trace of {z} anywhere in the clip",
        "without {z}, with {a} earlier than {b}, and {b} and {c} at different times",
        "in which {c} and {b} occur at different times, with {b} after {a}, and which does not contain {z}",
        "that contains {a} some time before {b}, and {c} at a separate time from {b}, but does not contain {z}",
    ),
    "after-overlap-absent": (
        "with {b} and {c} at the same time, and {a} after {b}, and no trace of {z} anywhere in the clip",
        "without {z}, with {a} after {b}, and {b} overlapping with {c}",
        "that contains {a} some time after {b}, and {b} together with {c}, but does not contain {z}",
        "in which {c} and {b} overlap, with {b} earlier than {a}, and which does not contain {z}",
    ),
    # the four-sound mix: "A for about N seconds, then B, and then C and D overlap"
    "lasts-before-overlap": (
        "with {a} lasting for about {n} seconds, {b} after {a}, {c} after {b}, and {c} and {d} overlapping",
        "with {b} after {a}, {d} at the same time as {c}, {c} after {b}, and {a} lasting for about {n} seconds",
        "with {a} lasting for about {n} seconds, {d} overlapping with {c}, {a} earlier than {b}, and {c} later than {b}",
        "in which {c} and {d} overlap, {c} later than {b}, {b} later than {a}, and about {n} seconds of {a}",
    ),
    "lasts-before-apart": (
        "with {a} lasting for about {n} seconds, {b} after {a}, {c} after {b}, and {c} and {d} at different times",
        "with {b} after {a}, {d} at a separate time from {c}, {c} after {b}, and {a} lasting for about {n} seconds",
        "with {a} lasting for about {n} seconds, {d} at a separate time from {c}, {a} earlier than {b}, "
        "and {c} later than {b}",
        "in which {c} and {d} occur at different times, {c} later than {b}, {b} later than {a}, and about "
        "{n} seconds of {a}",
    ),
    "lasts-after-overlap": (
        "with {b} before {a}, {a} lasting for about {n} seconds, {c} after {b}, and {c} and {d} overlapping",
        "in which {c} and {d} overlap, {c} later than {b}, {a} later than {b}, and about {n} seconds of {a}",
        "with {a} after {b}, {d} at the same time as {c}, {c} after {b}, and {a} lasting for about {n} seconds",
        "with {a} lasting for about {n} seconds, {d} overlapping with {c}, {a} after {b}, and {c} also after {b}",
    ),
    "lasts-after-apart": (
        "with {b} before {a}, {a} lasting for about {n} seconds, {c} after {b}, and {c} and {d} at different times",
        "in which {c} and {d} occur at different times, {c} later than {b}, {a} later than {b}, and about "
        "{n} seconds of {a}",
        "with {a} after {b}, {d} at a separate time from {c}, {c} after {b}, and {a} lasting for about {n} seconds",
        "with {a} lasting for about {n} seconds, {d} at a different time from {c}, {a} after {b}, "
        "and {c} also after {b}",
    ),
    # count (opt-in)
    "times": (
        "with {a} heard {n:times}",
        "that contains {a} {n:times}",
        "with {a} sounding {n:times}",
    ),
    "times-absent": (
        "with {a} heard {n:times}, and no trace of {z} anywhere in the clip",
        "that contains {a} {n:times}, but does not contain {z}",
        "without {z}, with {a} sounding {n:times}",
    ),
    "times-before": (
        "with {a} heard {n:times}, then {b}",
        "with {a} {n:times}, and later {b}",
        "with {b} after {a} heard {n:times}",
        "with {b}, and {a} heard {n:times} earlier",
    ),
    "more-often": (
        "with {a} heard more often than {b}",
        "with {b} heard fewer times than {a}",
        "that contains {a} more often than {b}",
        "with {b}, and {a} heard more often",
    ),
    "as-often": (
        "with {a} and {b} heard the same number of times",
        "with {b} heard as often as {a}",
        "that contains {a} and {b} equally often",
    ),
    "different-often": (
        "with {a} and {b} heard a different number of times",
        "with {b} heard a different number of times from {a}",
        "that contains {a} and {b} an unequal number of times",
    ),
    "after-apart-absent": (
        "with {b} before {a}, and {c} at a different time from {b}, and no trace of {z} anywhere in the clip",
        "without {z}, with {a} after {b}, and {c} at a separate time from {b}",
        "in which {b} and {c} occur at different times, with {a} after {b}, and which does not contain {z}",
        "that contains {a} some time after {b}, and {c} at a separate time from {b}, but does not contain {z}",
    ),
})
