#!/usr/bin/env bash
# One resolve of an unmoved bookmark through libdocbm, from C and from Python, against the
# same call in Swift, on one document and target. The three programs run in turn, ROUNDS
# times (the order rotating, so that a change in the machine's load falls on all alike);
# each reports the median of its batches, and the table gives the medians of those, with
# each ratio to Swift. Also: the size of the installed (stripped) library.
#
# Usage: run.sh SWIFT_BENCHMARKS LIBRARY_PREFIX PYTHON   (make bench-libdocbm runs it)
set -euo pipefail
benchmarks=$1
prefix=$2
python=$3
here=$(cd "$(dirname "$0")" && pwd)
rounds=${ROUNDS:-7}
iterations=${ITERATIONS:-20000}

scratch=$(mktemp -d -p "${TMPDIR:-/tmp}" docbm-libbench-XXXXXX)
trap 'rm -rf "$scratch"' EXIT
mkdir -m 0700 "$scratch/escrow"
export DOCBM_ESCROW_DIR=$scratch/escrow
mkdir -p "$scratch/project/images"
echo '{}' > "$scratch/project/board.json"
echo png > "$scratch/project/images/cat.png"
cc -O2 -std=c99 $(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags docbm) "$here/resolve.c" \
  $(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --libs docbm) -o "$scratch/resolve"
export LD_LIBRARY_PATH=$prefix/lib DOCBM_LIBRARY=$prefix/lib/libdocbm.so.0
bookmark=$("$python" -c 'import docbm, sys; print(docbm.Document(sys.argv[1]).make_bookmark(sys.argv[2]))' \
  "$scratch/project/board.json" "$scratch/project/images/cat.png")

declare -a swift c py
for round in $(seq 0 $((rounds - 1))); do
  for turn in 0 1 2; do
    case $(((round + turn) % 3)) in
      0) swift+=("$("$benchmarks" resolve-text "$scratch/project/board.json" "$bookmark" "$iterations" 9)") ;;
      1) c+=("$("$scratch/resolve" "$scratch/project/board.json" "$bookmark" "$iterations" 9)") ;;
      2) py+=("$("$python" "$here/resolve.py" "$scratch/project/board.json" "$bookmark" "$iterations" 9)") ;;
    esac
  done
done
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
s=$(median "${swift[@]}")
cm=$(median "${c[@]}")
pm=$(median "${py[@]}")
echo "libdocbm: one unmoved resolve of a bookmark's text form (medians of $rounds runs of 9 x $iterations calls)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
echo
echo "| call | time | ratio to Swift |"
echo "|---|---:|---:|"
awk -v s="$s" -v c="$cm" -v p="$pm" 'BEGIN {
  printf "| Swift: `document.resolve(try Bookmark(text:))` | %.2f µs | 1.00x |\n", s / 1000
  printf "| C: `docbm_resolve` + `docbm_resolution_free` | %.2f µs | %.2fx |\n", c / 1000, c / s
  printf "| Python: `Document.resolve` (ctypes) | %.2f µs | %.2fx |\n", p / 1000, p / s
}'
echo
echo "libdocbm.so.0, stripped: $(stat -c %s "$(readlink -f "$prefix/lib/libdocbm.so.0")") bytes; needs: $(readelf -d "$prefix/lib/libdocbm.so.0" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
