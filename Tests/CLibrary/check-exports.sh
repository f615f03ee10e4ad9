#!/usr/bin/env bash
# Checks that a built libdocbm exports exactly the functions docbm.h declares: nothing
# missing (a C program would fail to link), nothing more (no internal symbol leaks into
# the ABI), each under the library's symbol version.
#
# Usage: check-exports.sh LIBRARY HEADER
set -euo pipefail
library=$1
header=$2
declared=$(grep -oE '\bdocbm_[a-z_]+\(' "$header" | tr -d '(' | sort -u)
exported=$(readelf --dyn-syms -W "$library" \
  | awk '$5 == "GLOBAL" && $7 != "UND" && $8 ~ /^docbm_/ { print $8 }' | sort -u)
unversioned=$(grep -v '@@DOCBM_0$' <<<"$exported" || true)
exported=$(sed 's/@.*//' <<<"$exported")
others=$(readelf --dyn-syms -W "$library" \
  | awk '$5 == "GLOBAL" && $7 != "UND" && $8 !~ /^docbm_/ && $8 != "DOCBM_0" { print $8 }')
status=0
if [ "$declared" != "$exported" ]; then
  echo "docbm.h and $library disagree (< declared only, > exported only):" >&2
  diff <(echo "$declared") <(echo "$exported") | grep '^[<>]' >&2 || true
  status=1
fi
if [ -n "$unversioned" ]; then
  echo "exported without the DOCBM_0 version: $unversioned" >&2
  status=1
fi
if [ -n "$others" ]; then
  echo "exported beyond docbm_*: $others" >&2
  status=1
fi
[ $status = 0 ] && echo "libdocbm exports the $(wc -l <<<"$declared") functions of docbm.h, nothing else"
exit $status
