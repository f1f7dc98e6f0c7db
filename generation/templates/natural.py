"""The default text style: plain English, several templates per shape, some in the opposite order to time.

Every template says exactly what its shape's constraint says: relative order ("then", "after",
"earlier", "some time after"), never an absolute place ("first", "finally", "at the end": an unmentioned
sound may come before or after the named ones) nor adjacency ("followed by", "preceded by" read as
"immediately": an unmentioned sound may come in between); "at the same time" and "overlapping", never
"during" (the constraint allows partial overlap, "during" reads as containment); "at different times" or
"at a separate time" for the mirrors (apart), never "not at the same time" (it would read as a negated
sound) nor "separately" (it also reads as "can be told apart"); lengths relative to each other or "about N
seconds", never "briefly" (no atom bounds the shorter sound's own length) nor "for much longer" (it also
reads as "ends later"). Where an absence joins a relation, it is a clip-level clause of its own, first
("no trace of Z, but ...") or last with "anywhere in the clip": "B, after A, but not Z" also reads as "after
A but not after Z". Every ordered or compared pair (A before B, A longer than B) is named in its own direction
in exactly half of its shape's templates, so that a rule reading only the naming order gains nothing either way.
tests/core/test_phrases.py checks each template's relation words against its shape's atoms."""

TEMPLATES = {
    # negation
    "present-absent": (
        "{a}, without {z}",
        "{a} but not {z}",
        "{a}, and no sign of {z}",
        "no trace of {z}, but {a}",
        "without {z}, but with {a}",
    ),
    "two-present-absent": (
        "{a} and {b}, without {z}",
        "both {a} and {b}, but not {z}",
        "{a} as well as {b}, and no sign of {z}",
        "no trace of {z}, but {a} and {b}",
    ),
    "present-two-absent": (
        "{a}, without {z} or {z2}",
        "{a}, but neither {z} nor {z2}",
        "{a}, and no sign of {z} or {z2}",
        "no trace of {z} or {z2}, but {a}",
    ),
    # order: half the templates name the sounds in temporal order
    "before": (
        "{a}, then {b}",
        "{a}, and later {b}",
        "{a}, and afterwards {b}",
        "{b}, after {a}",
        "{b}, with {a} earlier",
        "{b}, some time after {a}",
    ),
    # chains: each order of naming the three sounds once, so that the naming order agrees with the
    # temporal one on half the pairs on average (more templates in temporal order would let a rule that
    # ranks the sound named first as heard first beat recognising the sounds)
    "chain": (
        "{a}, then {b}, and later {c}",
        "{b}, then {c}, both after {a}",
        "{c}, with {a} earlier and {b} in between",
        "{b}, after {a} and before {c}",
        "{c}, with {b} earlier, and {a} earlier still",
        "{a}, then {c}, with {b} in between",
    ),
    # overlap
    "overlap": (
        "{a} and {b} at the same time",
        "{a}, with {b} heard at the same time",
        "{b} overlapping with {a}",
        "{a} sounding together with {b}",
        "{b} and, simultaneously, {a}",
        "{b} at the same time as {a}",
    ),
    # the mirrors: "at different times" (apart: disjoint by the margin), never "not" (absent's word)
    "apart": (
        "{a} and {b} at different times",
        "{a}, and {b} at another time",
        "{b} and {a}, heard at different times",
        "{b}, at a different time from {a}",
        "{a} and, at a separate time, {b}",
        "{b} and, at another time, {a}",
    ),
    "overlap-before": (
        "{b} at the same time as {a}, and {c} after {a}",
        "{a} overlapping with {b}, and {a} earlier than {c}",
        "{c} after {a}, with {b} at the same time as {a}",
        "{c} later than {a}, and {a} and {b} at the same time",
    ),
    "apart-before": (
        "{b} at a different time from {a}, and {c} after {a}",
        "{a} and {b} at different times, and {a} earlier than {c}",
        "{c} after {a}, with {b} at a separate time from {a}",
        "{c} later than {a}, and {a} and {b} at different times",
    ),
    "overlap-after": (
        "{b} at the same time as {a}, and {c} before {a}",
        "{c} before {a}, and {a} overlapping with {b}",
        "{a} overlapping with {b}, and {a} after {c}",
        "{c} earlier than {a}, with {b} at the same time as {a}",
    ),
    "apart-after": (
        "{b} at a different time from {a}, and {c} before {a}",
        "{c} before {a}, and {a} and {b} at different times",
        "{a} and {b} at different times, and {a} after {c}",
        "{c} earlier than {a}, with {b} at a separate time from {a}",
    ),
    # duration
    "longer": (
        "{a} lasting much longer than {b}",
        "{b}, much shorter than {a}",
        "{a} going on far longer than {b}",
        "{b}, with {a} lasting much longer",
    ),
    "longer-chain": (                            # each order of naming the three sounds once
        "{a} lasting much longer than {b}, and {c} much shorter still",
        "{c}, {b} lasting much longer, and {a} much longer still",
        "{b}, much shorter than {a} but much longer than {c}",
        "{b} lasting much longer than {c} but much shorter than {a}",
        "{a} and {c}, respectively much longer and much shorter than {b}",
        "{c} and {a}, much shorter and much longer than {b} respectively",
    ),
    "lasts": (
        "{a} for about {n} seconds",
        "{a} lasting roughly {n} seconds",
        "about {n} seconds of {a}",
        "{a}, going on for around {n} seconds",
    ),
    # mix
    "before-absent": (
        "{a}, then {b}, and no sign of {z} anywhere in the clip",
        "no trace of {z} anywhere, but {a}, and later {b}",
        "{b}, after {a}, and no sign of {z} anywhere in the clip",
        "no sign of {z} anywhere, but {b}, with {a} earlier",
    ),
    "overlap-absent": (
        "{a} and {b} at the same time, and no sign of {z} anywhere in the clip",
        "{b} overlapping with {a}, and no trace of {z} anywhere in the clip",
        "no trace of {z}, but {a} sounding together with {b}",
    ),
    "apart-absent": (
        "{a} and {b} at different times, and no sign of {z} anywhere in the clip",
        "{b}, at a different time from {a}, and no trace of {z} anywhere in the clip",
        "no trace of {z}, but {a}, and {b} at another time",
    ),
    "longer-absent": (
        "{a} lasting much longer than {b}, and no sign of {z} anywhere in the clip",
        "{b}, much shorter than {a}, and no trace of {z} anywhere in the clip",
        "no sign of {z} anywhere, but {a} going on far longer than {b}",
        "no trace of {z}, but {b}, with {a} lasting much longer",
    ),
    "lasts-present-absent": (
        "{a} for about {n} seconds, and {b}, with no sign of {z} anywhere in the clip",
        "{b}, and {a} lasting roughly {n} seconds, but no trace of {z} anywhere in the clip",
        "about {n} seconds of {a}, {b} as well, and no sign of {z} anywhere in the clip",
        "no trace of {z}, but {b} and about {n} seconds of {a}",
    ),
    "before-overlap-absent": (
        "{b} after {a}, and {c} at the same time as {b}, and no sign of {z} anywhere in the clip",
        "no trace of {z} anywhere, but {a} and later {b}, with {c} overlapping with {b}",
        "{c} and {b} at the same time, {b} after {a}, and no sign of {z} anywhere in the clip",
        "no sign of {z} anywhere, but {a} some time before {b}, and {b} together with {c}",
    ),
    "before-apart-absent": (
        "{b} after {a}, and {c} at a different time from {b}, and no sign of {z} anywhere in the clip",
        "no trace of {z} anywhere, but {a} and later {b}, with {b} and {c} at different times",
        "{c} and {b} at different times, {b} after {a}, and no sign of {z} anywhere in the clip",
        "no sign of {z} anywhere, but {a} some time before {b}, and {c} at a separate time from {b}",
    ),
    "after-overlap-absent": (
        "{b} together with {c}, and {a} after {b}, and no sign of {z} anywhere in the clip",
        "{a} after {b}, and {b} overlapping with {c}, and no trace of {z} anywhere in the clip",
        "no trace of {z} anywhere, but {a} some time after {b}, with {b} and {c} at the same time",
        "no sign of {z} anywhere, but {c} at the same time as {b}, and {b} earlier than {a}",
    ),
    # the paper's four-sound mix (--profile paper): each ordered pair named each way in half, one of four in
    # temporal order
    "lasts-before-overlap": (
        "{a} for about {n} seconds, {b} after {a}, {c} after {b}, and {d} at the same time as {c}",
        "{b} after {a}, {d} overlapping with {c}, {c} after {b}, and {a} lasting roughly {n} seconds",
        "{a} lasting roughly {n} seconds, {d} together with {c}, {a} earlier than {b}, and {c} later than {b}",
        "{c} and {d} at the same time, {c} later than {b}, {b} later than {a}, and about {n} seconds of {a}",
    ),
    "lasts-before-apart": (
        "{a} for about {n} seconds, {b} after {a}, {c} after {b}, and {d} at a different time from {c}",
        "{b} after {a}, {d} at a separate time from {c}, {c} after {b}, and {a} lasting roughly {n} seconds",
        "{a} lasting roughly {n} seconds, {d} at a separate time from {c}, {a} earlier than {b}, and {c} later than {b}",
        "{c} and {d} at different times, {c} later than {b}, {b} later than {a}, and about {n} seconds of {a}",
    ),
    "lasts-after-overlap": (
        "{b} before {a}, {a} for about {n} seconds, {c} after {b}, and {d} at the same time as {c}",
        "{c} and {d} at the same time, {c} later than {b}, {a} later than {b}, and about {n} seconds of {a}",
        "{a} after {b}, {d} overlapping with {c}, {c} after {b}, and {a} lasting roughly {n} seconds",
        "{a} for about {n} seconds, {d} at the same time as {c}, {a} after {b}, and {c} also after {b}",
    ),
    "lasts-after-apart": (
        "{b} before {a}, {a} for about {n} seconds, {c} after {b}, and {d} at a different time from {c}",
        "{c} and {d} at different times, {c} later than {b}, {a} later than {b}, and about {n} seconds of {a}",
        "{a} after {b}, {d} at a separate time from {c}, {c} after {b}, and {a} lasting roughly {n} seconds",
        "{a} for about {n} seconds, {d} at a different time from {c}, {a} after {b}, and {c} also after {b}",
    ),
    # count (opt-in): a count as said ("once", "twice", "three separate times"); "more often" named each way in half
    "times": (
        "{a}, heard {n:times}",
        "{a} sounding {n:times}",
        "{a} {n:times} in the clip",
    ),
    "times-absent": (
        "{a}, heard {n:times}, and no sign of {z} anywhere in the clip",
        "no trace of {z} anywhere, but {a} sounding {n:times}",
        "{a} {n:times}, and no trace of {z} anywhere in the clip",
    ),
    "times-before": (
        "{a}, heard {n:times}, then {b}",
        "{a} {n:times}, and later {b}",
        "{a} sounding {n:times}, and afterwards {b}",
        "{b}, after {a} heard {n:times}",
        "{b}, with {a} heard {n:times} earlier",
        "{b}, some time after {a} sounding {n:times}",
    ),
    "more-often": (
        "{a} heard more often than {b}",
        "{b} heard less often than {a}",
        "{a} sounding more times than {b}",
        "{b}, with {a} heard more often",
    ),
    "as-often": (
        "{a} and {b}, each heard the same number of times",
        "{b} heard as often as {a}",
        "{a} heard as many times as {b}",
        "{b} and {a}, heard equally often",
    ),
    "different-often": (                     # the mirror: "a different number of times", never "not as often"
        "{a} and {b}, heard a different number of times",
        "{b} heard a different number of times from {a}",
        "{a} and {b}, each heard an unequal number of times",
        "{b} and {a}, heard a different number of times",
    ),
    "after-apart-absent": (
        "{b} before {a}, and {c} at a different time from {b}, and no sign of {z} anywhere in the clip",
        "no trace of {z} anywhere, but {a} after {b}, and {c} at a separate time from {b}",
        "{b} and {c} at different times, {a} after {b}, and no sign of {z} anywhere in the clip",
        "no sign of {z} anywhere, but {a} some time after {b}, and {c} at a separate time from {b}",
    ),
}
