#!/usr/bin/env bash
# Installs docbm's four Debian packages (docbm, libdocbm0, libdocbm-dev, python3-docbm)
# into a fresh root and runs the C and the Python sample editors against the installed
# files only: the C sample built with gcc and the installed docbm.h and docbm.pc, the
# Python sample with the system's python3, neither with DOCBM_LIBRARY, LD_LIBRARY_PATH or
# the Swift toolchain.
#
# The fresh root is this machine's own, seen through an overlay whose changes go to
# memory, in a mount namespace of its own: `dpkg -i` finds the packages' dependencies
# among the installed ones, and nothing it writes stays on the machine. /usr/local, /tmp
# and root's home are empty in it, and the Swift toolchain's folder is hidden, so that
# nothing installed by hand (`make install`, pip) stands in for the packages. The samples'
# files are on the disk, in a folder under FOLDER, where user extended attributes exist
# on every kernel (tmpfs has them only since Linux 6.6).
#
# Usage: install-and-run.sh FOLDER   (FOLDER holds the .deb files; as root, for the mount
# namespace: skips with a message where one, or the overlay, cannot be made)
set -euo pipefail
folder=$(readlink -f "$1")
source=$(readlink -f "$(dirname "$0")/../..")
debs=()
for package in docbm libdocbm0 libdocbm-dev python3-docbm; do
  found=("$folder/${package}_"*.deb)
  if [ ${#found[@]} != 1 ] || [ ! -f "${found[0]}" ]; then
    echo "expected one ${package}_*.deb in $folder, found: ${found[*]}" >&2
    exit 1
  fi
  debs+=("${found[0]}")
done
if [ "$(id -u)" != 0 ]; then
  echo "skipped: installing the packages into a fresh root needs root (a mount namespace, an overlay, chroot)"
  exit 0
fi
if ! unshare -m --propagation private true 2>/dev/null; then
  echo "skipped: cannot make a mount namespace here (unshare -m)"
  exit 0
fi
swift=$(command -v swift || true)
toolchain=""
if [ -n "$swift" ]; then toolchain=$(dirname "$(dirname "$(readlink -f "$swift")")"); fi

scratch=$(mktemp -d -p "$folder" fresh-root.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/layers" "$scratch/samples" "$scratch/debs"
cp "${debs[@]}" "$scratch/debs/"
cp -r "$source/Samples/c-editor" "$scratch/samples/c-editor"
rm -rf "$scratch/samples/c-editor/c-editor" "$scratch/samples/c-editor/run"
cp "$source/Samples/python-editor/editor.py" "$scratch/samples/editor.py"
cp "$source/Tests/Packages/in-fresh-root.sh" "$scratch/samples/"
export scratch toolchain

unshare -m --propagation private bash -euo pipefail -c '
  layers=$scratch/layers
  mount -t tmpfs -o mode=0755 fresh-root "$layers"
  mkdir "$layers/upper" "$layers/work" "$layers/root"
  if ! mount -t overlay fresh-root -o "lowerdir=/,upperdir=$layers/upper,workdir=$layers/work" \
    "$layers/root" 2>"$layers/error"; then
    echo "skipped: cannot mount an overlay over / here: $(cat "$layers/error")"
    exit 0
  fi
  root=$layers/root
  mount --rbind /dev "$root/dev"
  mount -t proc proc "$root/proc"
  for empty in tmp usr/local root; do mount -t tmpfs -o mode=0755 fresh-root "$root/$empty"; done
  chmod 1777 "$root/tmp"
  if [ -n "$toolchain" ] && [ -d "$root$toolchain" ]; then mount -t tmpfs -o ro,mode=0755 hidden "$root$toolchain"; fi
  mkdir "$root/tmp/debs" "$root/tmp/samples"
  mount --bind "$scratch/debs" "$root/tmp/debs"
  mount --bind "$scratch/samples" "$root/tmp/samples"
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    TMPDIR=/tmp/samples bash /tmp/samples/in-fresh-root.sh
'
