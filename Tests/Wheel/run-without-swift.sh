#!/usr/bin/env bash
# Installs a wheel of the Python package (`make wheel`) into a fresh virtual environment
# and runs the Python sample editor with it, on a machine as a user without Swift has it:
# the Swift toolchain's folder hidden under an empty one, and no DOCBM_LIBRARY or
# LD_LIBRARY_PATH. Passes when the sample runs and the library it loaded is the wheel's.
#
# Usage: run-without-swift.sh WHEEL SAMPLE (as root, for the mount namespace; skips with a
# message where one cannot be made).
set -euo pipefail
wheel=$(readlink -f "$1")
sample=$(readlink -f "$2")
swift=$(command -v swift || true)
if [ -z "$swift" ]; then
  echo "no swift on PATH: nothing to hide, the machine is already without it"
  toolchain=""
else
  toolchain=$(dirname "$(dirname "$(readlink -f "$swift")")")
fi
if ! unshare -m --propagation private true 2>/dev/null; then
  echo "skipped: cannot make a mount namespace here (unshare -m needs root) to hide the Swift toolchain"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$sample" "$work/editor.py"
export work wheel toolchain
unshare -m --propagation private env -u DOCBM_LIBRARY -u LD_LIBRARY_PATH bash -euo pipefail -c '
  if [ -n "$toolchain" ]; then
    mount -t tmpfs -o ro,mode=0755 hidden "$toolchain"
    if command -v swift >/dev/null 2>&1 && swift --version >/dev/null 2>&1; then
      echo "the Swift toolchain is still reachable after hiding $toolchain" >&2
      exit 1
    fi
  fi
  cd "$work"
  /usr/bin/python3 -m venv venv
  venv/bin/pip install --quiet --no-index "$wheel"
  loaded=$(venv/bin/python -c "import docbm._library as l; print(l.lib._name)")
  case "$loaded" in
    "$work"/venv/*/docbm/libdocbm.so.0) ;;
    *) echo "docbm loaded $loaded, not the library its wheel carries" >&2; exit 1 ;;
  esac
  if ldd "$loaded" | grep -E "not found|swift" >&2; then
    echo "the wheel'"'"'s libdocbm needs libraries this machine does not have" >&2
    exit 1
  fi
  venv/bin/python editor.py
  echo "the wheel ran the sample editor with the Swift toolchain hidden (${toolchain:-none}); libdocbm from $loaded"
'
