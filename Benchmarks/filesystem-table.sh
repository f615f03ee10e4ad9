#!/usr/bin/env bash
# Writes the measured tables of docs/filesystems.md from the filesystem tests' own output.
#
# The tests in Tests/DocumentBookmarksTests/Filesystems make each filesystem for real (loop
# images, tmpfs, overlayfs, bindfs, a fault-injecting FUSE passthrough) in a private mount
# namespace and, when DOCBM_FILESYSTEM_TABLE names a file, append every cell they measured
# to it as `table<TAB>filesystem<TAB>operation<TAB>result`. This script runs them with it
# set and replaces each table between its `<!-- measured:NAME begin -->` and
# `<!-- measured:NAME end -->` markers. A test that fails stops it: the doc keeps the last
# table that held. A filesystem whose test was skipped (no root, no loop devices, a tool
# missing) gets "not measured" cells, never a guess.
#
#   Benchmarks/filesystem-table.sh            (make filesystem-table; needs root)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
swift build --build-tests
DOCBM_FILESYSTEM_TABLE="$rows" swift test --skip-build \
  --filter 'FilesystemMatrixTests|BtrfsSubvolumeTests|OverlayCopyUpTests|LargeAttributeTests|FaultyFilesystemTests'

versions="Linux $(uname -r)"
for package in xfsprogs btrfs-progs bindfs python3-fusepy; do
  version=$(dpkg-query -W -f='${Version}' "$package" 2>/dev/null || true)
  [ -n "$version" ] && versions="$versions, $package $version"
done

/usr/bin/python3 - "$rows" docs/filesystems.md "$versions" <<'PY'
import sys

rows_path, doc_path, versions = sys.argv[1:]
columns = ["ext4", "xfs", "btrfs", "tmpfs", "overlayfs", "bindfs", "fusepy"]
names = {
    "ext4": "ext4", "xfs": "XFS", "btrfs": "Btrfs", "tmpfs": "tmpfs", "overlayfs": "overlayfs",
    "bindfs": "bindfs (FUSE)", "fusepy": "FUSE passthrough (libfuse 2)",
}
cells = {}
order = {}
with open(rows_path) as lines:
    for line in lines:
        table, filesystem, operation, result = line.rstrip("\n").split("\t")
        cells[(table, filesystem, operation)] = result
        order.setdefault(table, [])
        if operation not in order[table]:
            order[table].append(operation)


def cell(text):
    return text.replace("|", "\\|")


def grid(table):
    head = "| | " + " | ".join(names[c] for c in columns) + " |"
    rule = "|---|" + "---|" * len(columns)
    body = []
    for operation in order.get(table, []):
        values = [cell(cells.get((table, c, operation), "not measured")) for c in columns]
        body.append("| " + cell(operation) + " | " + " | ".join(values) + " |")
    return "\n".join([head, rule] + body)


def pairs(table, filesystem, heading):
    body = ["| %s | result |" % heading, "|---|---|"]
    for operation in order.get(table, []):
        body.append("| %s | %s |" % (cell(operation), cell(cells.get((table, filesystem, operation), "not measured"))))
    return "\n".join(body)


tables = {
    "matrix": grid("matrix"),
    "attributes": grid("attributes"),
    "btrfs": pairs("btrfs", "btrfs", "Btrfs situation"),
    "overlayfs": pairs("overlayfs", "overlayfs", "overlayfs situation"),
    "faults": pairs("faults", "FUSE, failing", "call made to fail, or operation"),
    "versions": "Measured with " + versions + ".",
}
with open(doc_path) as doc:
    text = doc.read()
for name, table in tables.items():
    begin, end = "<!-- measured:%s begin -->" % name, "<!-- measured:%s end -->" % name
    start, stop = text.index(begin) + len(begin), text.index(end)
    text = text[:start] + "\n" + table + "\n" + text[stop:]
with open(doc_path, "w") as doc:
    doc.write(text)
print("docs/filesystems.md: %d cells written" % len(cells))
PY
