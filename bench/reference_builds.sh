#!/usr/bin/env bash
# The reference builds of docs/results.md and their validity tables, from scratch.
#
#   bench/reference_builds.sh WORKDIR [ESC50_DIR]
#
# WORKDIR    a folder for the builds, runs and tables (created if missing). A build folder that already
#            exists there is kept, not made again (delete it to rebuild); it is still validated and scored.
# ESC50_DIR  the ESC-50 subset (fold 4, the first four clips of each class: audio/ and meta/esc50.csv) or a
#            full ESC-50 clone (`?fold=4&per_class=4` selects the same 200 clips). Without it the two ESC-50
#            builds are skipped.
#
# Environment: BUILDS (default "esc50 readme synthetic natural count count-synthetic"), WORKERS (rendering processes, default 2),
# PLAN_ROUNDS (rounds of the planning-cost timing, default 3; 0 skips it), REASONAUDIO (the command, default
# `reasonaudio` from PATH), PYTHON (default `python`). The `two-stage` baseline loads the text model
# all-MiniLM-L6-v2 (downloaded once by sentence-transformers).
#
# What it makes, each at 16 kHz and the default size (1,000 test queries, 10,000 clips):
#   esc50      ESC-50 subset, test seed 2 / train seed 3         -> the validity tables of the ESC-50 subset
#   readme     ESC-50 subset, test seed 0 / train seed 1         -> the per-task reference table (README)
#   synthetic  built-in bank, test seed 4 / train seed 5         -> the validity tables of the built-in bank
#   natural    stand-in st2 (seed 2) test / st3 (seed 3) train   -> the validity tables of the natural build
#   count      ESC-50 subset, --tasks count, test seed 2 / train 3 -> the count task's validity tables
#   count-synthetic  built-in bank, --tasks count, seeds 4 / 5     -> the same from the built-in bank
# then, for each: `reasonaudio validate` on both splits, `reasonaudio baselines --certify` (every reference
# system, written to WORKDIR/runs/BUILD; the build's certificate into its card, copied to
# WORKDIR/certificates/BUILD.md) and `bench/validity_table.py` (WORKDIR/tables/BUILD.md). Last, the reference
# plan fingerprints (bench/fingerprints.py; the script stops if they are not this benchmark version's) and
# the planning cost (CPU seconds per reference build, interleaved rounds).
#
# Time, on a 2-core machine (from the timings in docs/results.md): per build about 1 to 1.5 min to generate
# each split, under 1 min to validate each, 6 to 7 min for the baselines: about 10 min a build, 40 min for the
# first four; a count build (200 queries) about 4 min; plus about 2 min for the fingerprints and the planning cost.
set -euo pipefail

if [[ "${1:-}" == -h || "${1:-}" == --help ]]; then
    sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
fi
if [[ $# -lt 1 || $# -gt 2 ]]; then
    echo "usage: bench/reference_builds.sh WORKDIR [ESC50_DIR] (--help says more)" >&2
    exit 2
fi

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RA=${REASONAUDIO:-reasonaudio}
PY=${PYTHON:-python}
WORKERS=${WORKERS:-2}
PLAN_ROUNDS=${PLAN_ROUNDS:-3}
BUILDS=${BUILDS:-esc50 readme synthetic natural count count-synthetic}
mkdir -p "$1"
WORKDIR=$(cd "$1" && pwd)
ESC50=""
if [[ $# -eq 2 ]]; then
    ESC50=$(cd "$2" && pwd)
    [[ -f "$ESC50/meta/esc50.csv" ]] || { echo "$ESC50 is not an ESC-50 folder (no meta/esc50.csv)" >&2; exit 2; }
fi

say() { printf '\n== %s\n' "$*"; }
run() { printf '+ %s\n' "$*"; "$@"; }
wants() { [[ " $BUILDS " == *" $1 "* ]]; }

# generate OUT SOURCE SPLIT SEED [OPTION ...]: one split into its own folder (test and train never share a folder:
# one folder would share recordings, which validate refuses); an existing folder is kept
generate() {
    local out=$1 source=$2 split=$3 seed=$4
    shift 4
    if [[ -e "$out" ]]; then
        echo "$WORKDIR/$out exists: kept (delete it to build it again)"
        return 0
    fi
    if [[ -n "$source" ]]; then
        run "$RA" generate --source "$source" --split "$split" --seed "$seed" --out "$out" \
            --sample-rate 16000 --workers "$WORKERS" "$@"
    else
        run "$RA" generate --split "$split" --seed "$seed" --out "$out" --sample-rate 16000 --workers "$WORKERS" "$@"
    fi
}

# score BUILD: validate both splits, the reference baselines, the validity table
score() {
    local build=$1
    say "$build: validate"
    run "$RA" validate "$build" --workers "$WORKERS"
    run "$RA" validate "$build-train" --workers "$WORKERS"
    say "$build: baselines (about 6-7 min on 2 cores)"
    if [[ -f "runs/$build/baselines.md" ]]; then
        echo "runs/$build/baselines.md exists: kept (delete runs/$build to score again)"
    else
        run "$RA" baselines --data "$build" --train "$build-train" --out "runs/$build" --certify
    fi
    mkdir -p certificates      # the card's Validity section, as the Hub viewer shows it
    sed -n '/^## Validity$/,$p' "$build/README.md" > "certificates/$build.md"
    say "$build: validity table -> tables/$build.md"
    mkdir -p tables
    run "$PY" "$REPO/bench/validity_table.py" "runs/$build" --data "$build" | tee "tables/$build.md"
}

cd "$WORKDIR"
say "$("$RA" --version) in $WORKDIR; builds: $BUILDS"

if [[ -n "$ESC50" ]]; then
    ln -sfn "$ESC50" ESC-50          # sources are written relative to WORKDIR, as the reference builds' are
    # esc50_build NAME TEST_SEED TRAIN_SEED [OPTION ...]: the subset's test split, its train split in a folder of
    # its own, scored
    esc50_build() {
        local name=$1 test_seed=$2 train_seed=$3
        shift 3
        say "ESC-50 subset, test seed $test_seed / train seed $train_seed ($name)"
        generate "$name" "esc50:ESC-50?fold=4&per_class=4" test "$test_seed" "$@"
        generate "$name-train" "esc50:ESC-50?fold=4&per_class=4&as_split=train" train "$train_seed" "$@"
        score "$name"
    }
    if wants esc50; then esc50_build esc50 2 3; fi
    if wants readme; then esc50_build esc50-readme 0 1; fi      # README's reference table
    if wants count; then esc50_build count 2 3 --tasks count; fi
else
    say "no ESC50_DIR: the ESC-50 builds are skipped"
fi

if wants synthetic; then
    say "built-in bank, test seed 4 / train seed 5"
    generate syn "" test 4
    generate syn-train "" train 5
    score syn
fi

if wants count-synthetic; then
    say "built-in bank, the count task, test seed 4 / train seed 5"
    generate count-syn "" test 4 --tasks count
    generate count-syn-train "" train 5 --tasks count
    score count-syn
fi

if wants natural; then
    say "natural stand-in: st2 (seed 2) for test, st3 (seed 3) for train, 300 recordings each"
    [[ -e st2 ]] || run "$RA" standin st2 --recordings 300 --seed 2
    [[ -e st3 ]] || run "$RA" standin st3 --recordings 300 --seed 3
    generate nat "strong:st2?labels=audioset.tsv&ontology=ontology.json&as_split=test" test 2
    generate nat-train "strong:st3?labels=audioset.tsv&ontology=ontology.json&as_split=train" train 3
    score nat
fi

say "reference plan fingerprints (benchmark version $("$PY" -c "from reasonaudio.versions import BENCHMARK_VERSION as v; print(v)"))"
ESC50_ARG=()
if [[ -n "$ESC50" ]]; then
    # the recorded ESC-50 fingerprint is the subset's (200 clips); a full clone plans another build
    if [[ $(($(wc -l < "$ESC50/meta/esc50.csv") - 1)) -eq 200 ]]; then
        ESC50_ARG=(--esc50 "$ESC50")
    else
        echo "ESC50_DIR is a full clone: its fingerprint is left out (bench/fingerprints.py wants the 200-clip subset)"
    fi
fi
run "$PY" "$REPO/bench/fingerprints.py" ${ESC50_ARG[@]+"${ESC50_ARG[@]}"}

if [[ "$PLAN_ROUNDS" -gt 0 ]]; then
    say "planning cost: CPU s to plan each reference build's test split, $PLAN_ROUNDS interleaved rounds"
    mkdir -p planning
    [[ -e planning/st2 || ! -e st2 ]] || ln -s ../st2 planning/st2      # the stand-in made above, if any
    "$PY" - "$WORKDIR/planning" "${ESC50_ARG[1]:-}" "$PLAN_ROUNDS" <<'EOF'
import sys
import time

from reasonaudio.generation.pipeline import plan_split
from reasonaudio.generation.references import prepare, reference_configs, working_in

workdir, esc50, rounds = sys.argv[1], sys.argv[2] or None, int(sys.argv[3])
names = [name for name in reference_configs(workdir) if prepare(workdir, name, esc50)]
seconds = {name: [] for name in names}
with working_in(workdir):
    configs = reference_configs(".")
    for _ in range(rounds):
        for name in names:
            started = time.process_time()
            plan_split(configs[name], frozenset())
            seconds[name].append(time.process_time() - started)
print("| build | CPU s, rounds in order |\n|---|---|")
for name in names:
    print(f"| {name} | {', '.join(f'{s:.2f}' for s in seconds[name])} |")
EOF
fi

say "done: tables in $WORKDIR/tables, runs in $WORKDIR/runs"
