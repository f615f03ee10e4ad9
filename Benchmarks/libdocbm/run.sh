#!/usr/bin/env bash
# Two calls through libdocbm, from C and from Python, against the same call in Swift: one
# resolve of an unmoved bookmark, and a store's add of a target followed by its forget. For
# each, the three programs run in turn, ROUNDS times (the order rotating, so that a change
# in the machine's load falls on all alike); each reports the median of its batches, and
# the table gives the medians of those, with each ratio to Swift. Exits 1 when C is over
# 1.2x of Swift or Python over 3x. Also: the size of the installed (stripped) library.
#
# Usage: run.sh SWIFT_BENCHMARKS LIBRARY_PREFIX PYTHON   (make bench-libdocbm runs it)
set -euo pipefail
benchmarks=$1
prefix=$2
python=$3
here=$(cd "$(dirname "$0")" && pwd)
rounds=${ROUNDS:-7}
iterations=${ITERATIONS:-20000}
store_iterations=${STORE_ITERATIONS:-50}

scratch=$(mktemp -d -p "${TMPDIR:-/tmp}" docbm-libbench-XXXXXX)
trap 'rm -rf "$scratch"' EXIT
mkdir -m 0700 "$scratch/escrow"
export DOCBM_ESCROW_DIR=$scratch/escrow
mkdir -p "$scratch/project/images"
echo '{}' > "$scratch/project/board.json"
echo png > "$scratch/project/images/cat.png"
cc -O2 -std=c99 $(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags docbm) "$here/call.c" \
  $(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --libs docbm) -o "$scratch/call"
export LD_LIBRARY_PATH=$prefix/lib DOCBM_LIBRARY=$prefix/lib/libdocbm.so.0
bookmark=$("$python" -c 'import docbm, sys; print(docbm.Document(sys.argv[1]).make_bookmark(sys.argv[2]))' \
  "$scratch/project/board.json" "$scratch/project/images/cat.png")

median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# Runs the Swift, C and Python programs of one call in turn, ROUNDS times (the order
# rotating), and prints the three medians.
measure() {
  local -a swift=() c=() py=()
  local round turn
  for round in $(seq 0 $((rounds - 1))); do
    for turn in 0 1 2; do
      case $(((round + turn) % 3)) in
        0) swift+=("$("$@" swift)") ;;
        1) c+=("$("$@" c)") ;;
        2) py+=("$("$@" python)") ;;
      esac
    done
  done
  echo "$(median "${swift[@]}") $(median "${c[@]}") $(median "${py[@]}")"
}

resolve_once() {
  case $1 in
    swift) "$benchmarks" resolve-text "$scratch/project/board.json" "$bookmark" "$iterations" 9 ;;
    c) "$scratch/call" resolve "$scratch/project/board.json" "$bookmark" "$iterations" 9 ;;
    python) "$python" "$here/call.py" resolve "$scratch/project/board.json" "$bookmark" "$iterations" 9 ;;
  esac
}

# Each language its own store (one file per store), the same target.
store_once() {
  case $1 in
    swift) "$benchmarks" store-add "$scratch/swift.sqlite" "$scratch/project/images/cat.png" "$store_iterations" 9 ;;
    c) "$scratch/call" store-add "$scratch/c.sqlite" "$scratch/project/images/cat.png" "$store_iterations" 9 ;;
    python) "$python" "$here/call.py" store-add "$scratch/python.sqlite" "$scratch/project/images/cat.png" \
      "$store_iterations" 9 ;;
  esac
}

read -r resolve_swift resolve_c resolve_python <<<"$(measure resolve_once)"
read -r store_swift store_c store_python <<<"$(measure store_once)"

echo "libdocbm: each call from Swift, C and Python (medians of $rounds runs of 9 batches;" \
  "$iterations resolves or $store_iterations add-and-forget pairs a batch)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
echo
echo "| call | Swift | C | ratio | Python | ratio |"
echo "|---|---:|---:|---:|---:|---:|"
row() {
  awk -v name="$1" -v s="$2" -v c="$3" -v p="$4" 'BEGIN {
    printf "| %s | %.2f µs | %.2f µs | %.2fx | %.2f µs | %.2fx |\n", name, s / 1000, c / 1000, c / s, p / 1000, p / s
  }'
}
row 'one unmoved resolve of a bookmark'"'"'s text' "$resolve_swift" "$resolve_c" "$resolve_python"
row 'a store'"'"'s add of a target, then its forget' "$store_swift" "$store_c" "$store_python"
echo
echo "libdocbm.so.0, stripped: $(stat -c %s "$(readlink -f "$prefix/lib/libdocbm.so.0")") bytes; needs: $(readelf -d "$prefix/lib/libdocbm.so.0" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | tr '\n' ' ')"

# The goals: C within 1.2x of Swift, Python within 3x, for each call.
missed=$(awk -v rs="$resolve_swift" -v rc="$resolve_c" -v rp="$resolve_python" \
  -v ss="$store_swift" -v sc="$store_c" -v sp="$store_python" 'BEGIN {
    if (rc / rs > 1.2) printf "resolve from C (goal <= 1.2x); "
    if (rp / rs > 3) printf "resolve from Python (goal <= 3x); "
    if (sc / ss > 1.2) printf "store add from C (goal <= 1.2x); "
    if (sp / ss > 3) printf "store add from Python (goal <= 3x); "
  }')
if [ -n "$missed" ]; then
  echo "goals missed: $missed"
  exit 1
fi
echo "goals met: C within 1.2x of Swift and Python within 3x, for both calls"
