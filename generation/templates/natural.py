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
        "{a} overlapping with {b}, and {a} followed by {c}",
        "{c} after {a}, with {b} at the same time as {a}",
        "{a} before {c}, and {a} and {b} at the same time",
    ),
    "apart-before": (
        "{b} at a different time from {a}, and {c} after {a}",
        "{a} and {b} at different times, and {a} followed by {c}",
        "{c} after {a}, with {b} at a separate time from {a}",
        "{a} before {c}, and {b} heard separately from {a}",
    ),
    "overlap-after": (
        "{b} at the same time as {a}, and {c} before {a}",
        "{c} before {a}, and {a} overlapping with {b}",
        "{a} overlapping with {b}, and {a} after {c}",
        "{a} preceded by {c}, with {b} at the same time as {a}",
    ),
    "apart-after": (
        "{b} at a different time from {a}, and {c} before {a}",
        "{c} before {a}, and {a} and {b} at different times",
        "{a} and {b} at different times, and {a} after {c}",
        "{a} preceded by {c}, with {b} at a separate time from {a}",
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
        "{b} after {a}, and {c} at the same time as {b}, without {z}",
        "{a} followed by {b}, with {c} overlapping with {b}, but not {z}",
        "{c} and {b} at the same time, and {b} after {a}, and no sign of {z}",
        "{b} preceded by {a}, and {b} together with {c}, with no trace of {z}",
    ),
    "before-apart-absent": (
        "{b} after {a}, and {c} at a different time from {b}, without {z}",
        "{a} followed by {b}, and {b} and {c} at different times, but not {z}",
        "{c} and {b} at different times, and {b} after {a}, and no sign of {z}",
        "{b} preceded by {a}, and {c} at a separate time from {b}, with no trace of {z}",
    ),
    "after-overlap-absent": (
        "{b} together with {c}, and {a} after {b}, without {z}",
        "{a} after {b}, and {b} overlapping with {c}, but not {z}",
        "{a} preceded by {b}, with {b} and {c} at the same time, and no sign of {z}",
        "{c} at the same time as {b}, and {b} followed by {a}, with no trace of {z}",
    ),
    # the paper's four-sound mix (--profile paper): a third of each in temporal order
    "lasts-before-overlap": (
        "{a} for about {n} seconds, {b} after {a}, {c} after {b}, and {d} at the same time as {c}",
        "{c} and {d} at the same time, {c} preceded by {b}, {b} preceded by {a}, and about {n} seconds of {a}",
        "{b} after {a}, {d} overlapping with {c}, {c} after {b}, and {a} lasting roughly {n} seconds",
    ),
    "lasts-before-apart": (
        "{a} for about {n} seconds, {b} after {a}, {c} after {b}, and {d} at a different time from {c}",
        "{c} and {d} at different times, {c} preceded by {b}, {b} preceded by {a}, and about {n} seconds of {a}",
        "{b} after {a}, {d} at a separate time from {c}, {c} after {b}, and {a} lasting roughly {n} seconds",
    ),
    "lasts-after-overlap": (
        "{b} before {a}, {a} for about {n} seconds, {c} after {b}, and {d} at the same time as {c}",
        "{c} and {d} at the same time, {c} preceded by {b}, {a} preceded by {b}, and about {n} seconds of {a}",
        "{a} after {b}, {d} overlapping with {c}, {c} after {b}, and {a} lasting roughly {n} seconds",
    ),
    "lasts-after-apart": (
        "{b} before {a}, {a} for about {n} seconds, {c} after {b}, and {d} at a different time from {c}",
        "{c} and {d} at different times, {c} preceded by {b}, {a} preceded by {b}, and about {n} seconds of {a}",
        "{a} after {b}, {d} at a separate time from {c}, {c} after {b}, and {a} lasting roughly {n} seconds",
    ),
    "after-apart-absent": (
        "{b} before {a}, and {c} at a different time from {b}, without {z}",
        "{a} after {b}, and {c} at a separate time from {b}, but not {z}",
        "{b} and {c} at different times, and {a} after {b}, and no sign of {z}",
        "{a} preceded by {b}, and {c} heard separately from {b}, with no trace of {z}",
    ),
}
