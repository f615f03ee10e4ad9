#!/usr/bin/env bash
# The part of install-and-run.sh that runs inside the fresh root, as root, from the
# folder /tmp/samples that holds the samples: installs the packages from /tmp/debs, then
# builds and runs the C sample and runs the Python sample, each checked to use the
# installed files.
set -euo pipefail
if command -v swift >/dev/null 2>&1; then
  echo "the Swift toolchain is still reachable: $(command -v swift)" >&2
  exit 1
fi
if ! dpkg -i /tmp/debs/*.deb >/tmp/dpkg.log 2>&1; then
  cat /tmp/dpkg.log >&2
  exit 1
fi
echo "installed: $(dpkg-query -W -f='${Package} ${Version}  ' docbm libdocbm0 libdocbm-dev python3-docbm)"
multiarch=$(gcc -print-multiarch)
echo "docbm --version: $(docbm --version) ($(command -v docbm))"

# C: the installed header and pkg-config file, the installed library at run time.
pc=$(pkg-config --path docbm)
if [ "$pc" != "/usr/lib/$multiarch/pkgconfig/docbm.pc" ]; then
  echo "pkg-config finds docbm.pc at $pc, not the one libdocbm-dev installed" >&2
  exit 1
fi
cd /tmp/samples/c-editor
make --no-print-directory run CC=gcc CFLAGS="-std=c99 -Wall -Wextra -Werror -O2"
linked=$(readlink -f "$(ldd ./c-editor | awk '/libdocbm/ { print $3 }')")
if [ "$linked" != "$(readlink -f "/usr/lib/$multiarch/libdocbm.so.0")" ]; then
  echo "the C sample runs with libdocbm from '$linked', not the one libdocbm0 installed" >&2
  exit 1
fi
echo "the C sample ran, built with $pc, libdocbm from $linked"

# Python: the system python3 and python3-docbm; libdocbm found by its soname.
cd /tmp/samples
MULTIARCH=$multiarch python3 - <<'PYTHON'
import os

import docbm

mapped = sorted({line.split()[-1] for line in open("/proc/self/maps") if "libdocbm" in line})
print(f"python3 imports {docbm.__file__}, which loads {' '.join(mapped)}")
assert docbm.__file__ == "/usr/lib/python3/dist-packages/docbm/__init__.py", docbm.__file__
assert len(mapped) == 1 and mapped[0].startswith(f"/usr/lib/{os.environ['MULTIARCH']}/libdocbm.so.0"), mapped
PYTHON
python3 editor.py
echo "the Python sample ran with the system python3 and python3-docbm"
