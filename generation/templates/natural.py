"""The default text style: plain English, several templates per shape, some in the opposite order to time.

Every template says exactly what its shape's constraint says: relative order ("then", "after",
"preceded by"), never an absolute place ("first", "finally", "at the end": an unmentioned sound may come
before or after the named ones); "at the same time" and "overlapping", never "during" (the constraint
allows partial overlap, "during" reads as containment); "at different times" or "separately" for the
mirrors (apart), never "not at the same time" (it would read as a negated sound); lengths relative to
each other or "about N seconds", never "briefly" (no atom bounds the shorter sound's own length).
tests/test_phrases.py checks each template's relation words against its shape's atoms."""

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
        "{a} followed by {b}",
        "{a}, and afterwards {b}",
        "{b}, after {a}",
        "{b}, preceded by {a}",
        "{b}, following {a}",
    ),
    # chains: each order of naming the three sounds once, so that the naming order agrees with the
    # temporal one on half the pairs on average (two templates in temporal order gave first-mentioned-first
    # 15 points over bag-of-sounds)
    "chain": (
        "{a}, then {b}, and later {c}",
        "{b}, then {c}, both after {a}",
        "{c}, coming after {a} and then {b}",
        "{b}, after {a} and before {c}",
        "{c}, preceded by {b}, and before that {a}",
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
        "{b} and {a}, heard separately",
        "{b}, at a different time from {a}",
        "{a} and, at a separate time, {b}",
        "{b} and, at another time, {a}",
    ),
    "overlap-before": (
        "{b} at the same time as {a}, and {c} after {a}",
        "{a}, with {b} at the same time, and afterwards {c}",
        "{c}, after {a} overlapping with {b}",
        "{c}, preceded by {a} overlapping with {b}",
    ),
    "apart-before": (
        "{b} at a different time from {a}, and {c} after {a}",
        "{a}, with {b} at another time, and {c} after {a}",
        "{c}, after {a}, with {b} at a separate time from {a}",
        "{c}, preceded by {a}, and {b} at a different time from {a}",
    ),
    "overlap-after": (
        "{b} at the same time as {a}, and {c} before {a}",
        "{c}, then {a} with {b} at the same time",
        "{a} overlapping with {b}, after {c}",
        "{a}, with {b} at the same time, preceded by {c}",
    ),
    "apart-after": (
        "{b} at a different time from {a}, and {c} before {a}",
        "{c}, then {a}, with {b} at a different time from {a}",
        "{a} and {b} at different times, and {a} after {c}",
        "{a}, preceded by {c}, with {b} at a separate time from {a}",
    ),
    # duration
    "longer": (
        "{a} lasting much longer than {b}",
        "{b}, much shorter than {a}",
        "{a} going on far longer than {b}",
        "{b}, and {a} for much longer",
    ),
    "longer-chain": (
        "{a} lasting much longer than {b}, and {b} much longer than {c}",
        "{c}, {b} lasting much longer, and {a} much longer still",
        "{b}, much shorter than {a} but much longer than {c}",
        "{b} lasting much longer than {c} but much shorter than {a}",
    ),
    "lasts": (
        "{a} for about {n} seconds",
        "{a} lasting roughly {n} seconds",
        "about {n} seconds of {a}",
        "{a}, going on for around {n} seconds",
    ),
    # mix
    "before-absent": (
        "{a}, then {b}, without {z}",
        "{a} followed by {b}, and no sign of {z}",
        "{b}, after {a}, but not {z}",
        "{b}, preceded by {a}, with no trace of {z}",
    ),
    "overlap-absent": (
        "{a} and {b} at the same time, without {z}",
        "{b} overlapping with {a}, and no sign of {z}",
        "no trace of {z}, but {a} sounding together with {b}",
    ),
    "apart-absent": (
        "{a} and {b} at different times, without {z}",
        "{b}, at a different time from {a}, and no sign of {z}",
        "no trace of {z}, but {a}, and {b} at another time",
    ),
    "longer-absent": (
        "{a} lasting much longer than {b}, without {z}",
        "{b}, much shorter than {a}, and no sign of {z}",
        "no trace of {z}, but {b}, and {a} for much longer",
    ),
    "lasts-present-absent": (
        "{a} for about {n} seconds, and {b}, without {z}",
        "{b}, and {a} lasting roughly {n} seconds, but not {z}",
        "about {n} seconds of {a}, {b} as well, and no sign of {z}",
        "no trace of {z}, but {b} and about {n} seconds of {a}",
    ),
    "before-overlap-absent": (
        "{a}, then {b} together with {c}, without {z}",
        "{a} followed by {b} overlapping with {c}, but not {z}",
        "{b} and {c} at the same time after {a}, and no sign of {z}",
        "{b} with {c} heard at the same time, preceded by {a}, with no trace of {z}",
    ),
    "before-apart-absent": (
        "{a}, then {b}, with {c} at another time, without {z}",
        "{a} followed by {b}, and {c} at a different time from {b}, but not {z}",
        "{b} and {c} at different times, {b} after {a}, and no sign of {z}",
        "{b}, preceded by {a}, and {c} at a separate time from {b}, with no trace of {z}",
    ),
    "after-overlap-absent": (
        "{b} together with {c}, then {a}, without {z}",
        "{a}, after {b} overlapping with {c}, but not {z}",
        "{a}, preceded by {b} and {c} at the same time, and no sign of {z}",
        "{c} at the same time as {b}, followed by {a}, with no trace of {z}",
    ),
    # the paper's four-sound mix (--profile paper): a third of each in temporal order
    "lasts-before-overlap": (
        "{a} for about {n} seconds, then {b}, and later {c} and {d} at the same time",
        "{c} and {d} at the same time, preceded by {b}, and before that about {n} seconds of {a}",
        "{b} after {a} lasting roughly {n} seconds, and then {c} overlapping with {d}",
    ),
    "lasts-before-apart": (
        "{a} for about {n} seconds, then {b}, and later {c} and {d} at different times",
        "{c} and {d} at different times, preceded by {b}, and before that about {n} seconds of {a}",
        "{b} after {a} lasting roughly {n} seconds, and then {c}, with {d} at another time",
    ),
    "lasts-after-overlap": (
        "{b}, then {a} for about {n} seconds, and {c} and {d} at the same time after {b}",
        "{a} lasting roughly {n} seconds after {b}, and {c} overlapping with {d} after {b}",
        "{c} and {d} at the same time and about {n} seconds of {a}, both preceded by {b}",
    ),
    "lasts-after-apart": (
        "{b}, then {a} for about {n} seconds, and {c} and {d} at different times after {b}",
        "{a} lasting roughly {n} seconds after {b}, and {c} after {b}, with {d} at another time",
        "{c} and {d} at different times and about {n} seconds of {a}, both preceded by {b}",
    ),
    "after-apart-absent": (
        "{b}, then {a}, with {c} at another time, without {z}",
        "{a}, after {b}, and {c} at a different time from {b}, but not {z}",
        "{b} and {c} at different times, {a} after {b}, and no sign of {z}",
        "{a}, preceded by {b}, and {c} at a separate time from {b}, with no trace of {z}",
    ),
}
