#!/usr/bin/env bash
# Which saves keep a document's key, measured two ways and compared:
#
#   1. `docbm probe --json --in FOLDER …` runs the save on its scratch document;
#   2. the same save runs on a document set up without docbm (setfattr, chmod, ln, ln -s)
#      and is judged with getfattr, stat and ls only: the ground truth.
#
# Prints one Markdown row per save (what the probe said, what the ground truth saw, whether
# they agree) and the agreement. Saves whose program is not installed are listed as skipped.
#
#   Benchmarks/save-table.sh [FOLDER]     (default: .build/save-table, a user's folder)
#
# Needs: docbm built (swift build), attr (getfattr/setfattr), and for the rows: vim, emacs
# (emacs-nox), nano, gawk, moreutils (sponge), patch, rsync, zip/unzip, git, python3 with
# python3-gi (GLib), swiftc. Runs about a minute.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
docbm=${DOCBM:-$root/.build/debug/docbm}
folder=${1:-$root/.build/save-table}
mkdir -p "$folder"
folder=$(cd "$folder" && pwd -P)
python=/usr/bin/python3
[ -x "$docbm" ] || { echo "build docbm first: swift build" >&2; exit 1; }

export NEW TTYKEYS="$here/save-table/tty-keys.py" WORK
NEW=$(mktemp -d "$folder/new.XXXXXX")/new.json
printf '{"new": true}\n' > "$NEW"
helpers=$(mktemp -d "$folder/helpers.XXXXXX")
export FMCOPY="$helpers/fm-copy"
command -v swiftc >/dev/null && swiftc -o "$FMCOPY" "$here/save-table/fm-copy.swift" 2>/dev/null
trap 'rm -rf "$(dirname "$NEW")" "$helpers"' EXIT

# The ground truth: set up a document like the probe's (three user attributes, mode 0640,
# optionally a second name and a symbolic link), run the save, compare.
truth() { # location hardlink(0|1) symlink(0|1) snippet
  local location=$1 hard=$2 sym=$3 snippet=$4
  local f doc save before after kinds=() status
  f=$(mktemp -d "$location/.truth-XXXXXX")
  doc=$f/document.json
  printf '{"sibling": "a bookmark would be here"}\n' > "$doc"
  setfattr -n user.gt.key -v "$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')" "$doc"
  setfattr -n user.gt.color -v "value 0" "$doc"
  setfattr -n user.gt.note -v "value 1" "$doc"
  chmod 0640 "$doc"
  [ "$hard" = 1 ] && ln "$doc" "$f/document-second-name.json"
  save=$doc
  [ "$sym" = 1 ] && { ln -s document.json "$f/document-alias.json"; save=$f/document-alias.json; }
  local key color note owner entries sum stamp
  key=$(getfattr --only-values -n user.gt.key "$doc" 2>/dev/null)
  color=$(getfattr --only-values -n user.gt.color "$doc" 2>/dev/null)
  note=$(getfattr --only-values -n user.gt.note "$doc" 2>/dev/null)
  owner=$(stat -c %u:%g "$doc")
  entries=$(ls -A "$f")
  sum=$(sha256sum < "$doc")
  stamp=$(stat -c '%i %y %z' "$doc")
  WORK=$(mktemp -d "$location/.work-XXXXXX")
  ( cd "$location" && /bin/sh -c "$snippet" sh "$save" ) >/dev/null 2>&1 </dev/null
  status=$?
  rm -rf "$WORK"
  [ "$status" != 0 ] && kinds+=(saveFailed)
  [ "$sym" = 1 ] && [ ! -L "$save" ] && kinds+=(symbolicLinkReplaced)
  if [ ! -e "$save" ]; then
    kinds+=(documentMissing)
  else
    [ "$(getfattr --only-values -n user.gt.key "$save" 2>/dev/null)" = "$key" ] || kinds+=(keyLost)
    if [ "$(getfattr --only-values -n user.gt.color "$save" 2>/dev/null)" != "$color" ] \
      || [ "$(getfattr --only-values -n user.gt.note "$save" 2>/dev/null)" != "$note" ]; then
      kinds+=(attributesLost)
    fi
    [ "$(stat -L -c %a "$save")" = 640 ] || kinds+=(modeChanged)
    [ "$(stat -L -c %u:%g "$save")" = "$owner" ] || kinds+=(ownerChanged)
    if [ "$hard" = 1 ] && [ "$(stat -c %i "$f/document-second-name.json")" != "$(stat -L -c %i "$save")" ]; then
      kinds+=(hardLinkSplit)
    fi
  fi
  local written=1
  if [ -e "$save" ] && [ "$(sha256sum < "$save")" = "$sum" ] && [ "$(stat -L -c '%i %y %z' "$save")" = "$stamp" ]; then
    written=0
  fi
  [ "$(ls -A "$f")" != "$entries" ] && kinds+=(temporaryFilesLeft)
  chattr -R -i -a "$f" 2>/dev/null; chmod -R u+rwx "$f" 2>/dev/null; rm -rf "$f"
  local lost=0 k
  for k in "${kinds[@]}"; do [ "$k" != temporaryFilesLeft ] && lost=1; done
  local verdict
  if [ $lost = 1 ]; then verdict=lost
  elif [ $written = 0 ]; then verdict=notSaved
  elif [ ${#kinds[@]} -gt 0 ]; then verdict=keptLeavingFiles
  else verdict=kept; fi
  echo "$verdict $(printf '%s\n' "${kinds[@]}" | sort | tr '\n' ' ')"
}

# What the probe says, in the same terms (bookmarkNoLongerResolves follows from keyLost;
# keyChanged is a lost key for the ground truth).
probe() { # location options snippet
  local location=$1 options=$2 snippet=$3 json status
  WORK=$(mktemp -d "$location/.work-XXXXXX")
  # shellcheck disable=SC2086
  json=$("$docbm" probe --json --in "$location" $options -- /bin/sh -c "$snippet" sh {} 2>/dev/null </dev/null)
  status=$?
  rm -rf "$WORK"
  "$python" -c '
import json, sys
r = json.loads(sys.argv[1])
kinds = sorted({ {"keyChanged": "keyLost"}.get(f["kind"], f["kind"]) for f in r["findings"]} - {"bookmarkNoLongerResolves"})
print(r["verdict"], " ".join(kinds) + (" " if kinds else ""), "|", sys.argv[2], "|", "tmp" if r["underTemporaryFolder"] else "user")
' "$json" "$status"
}

rows=0 agreed=0 skipped=()
printf '| save | where | probe: exit, verdict | findings (probe) | ground truth (getfattr, stat, ls) | agree |\n'
printf '|---|---|---|---|---|---|\n'
row() { # name options requirement snippet [tmp]
  local name=$1 options=$2 need=$3 snippet=$4 where=${5:-user}
  if [ -n "$need" ] && ! command -v "$need" >/dev/null && [ ! -x "$need" ]; then
    skipped+=("$name ($need not installed)"); return
  fi
  local location=$folder
  [ "$where" = tmp ] && location=$(mktemp -d /tmp/save-table.XXXXXX)
  # Each row says how many names the document has: two unless --without-hard-link.
  local hard=1 sym=0
  case " $options " in *" --without-hard-link "*) hard=0 ;; *) options="$options --with-hard-link" ;; esac
  case " $options " in *" --through-link "*) sym=1 ;; esac
  local p t pv pk pstatus pwhere tv tk
  p=$(probe "$location" "$options" "$snippet")
  t=$(truth "$location" $hard $sym "$snippet")
  [ "$where" = tmp ] && rm -rf "$location"
  pv=${p%% *}; pk=$(echo "${p#* }" | cut -d'|' -f1 | xargs); pstatus=$(echo "$p" | cut -d'|' -f2 | xargs)
  pwhere=$(echo "$p" | cut -d'|' -f3 | xargs)
  tv=${t%% *}; tk=$(echo "${t#* }" | xargs)
  rows=$((rows + 1))
  local agree=no
  [ "$pv" = "$tv" ] && [ "$pk" = "$tk" ] && { agree=yes; agreed=$((agreed + 1)); }
  local links=""
  [ $hard = 1 ] && links=", 2 names"
  [ $sym = 1 ] && links="$links, via a symlink"
  printf '| %s%s | %s | %s, %s | %s | %s: %s | %s |\n' "$name" "$links" "$pwhere" "$pstatus" "$pv" "${pk:-none}" "$tv" "${tk:-none}" "$agree"
}

vim='vim -u NONE -N -E -s'
edit='-c "normal! Ax" -c wq "$1"'
emacs='emacs -Q --batch'
esave='--eval "(progn (goto-char (point-max)) (insert \"x\") (save-buffer))"'
py=$python
one=--without-hard-link

row "Vim, default (backupcopy=auto)" "$one" vim "$vim $edit"
row "Vim, default (backupcopy=auto)" "" vim "$vim $edit"
row "Vim, default (backupcopy=auto)" "$one --through-link" vim "$vim $edit"
row "Vim, default (backupcopy=auto)" "$one" vim "$vim $edit" tmp
row "Vim, backupcopy=yes" "$one" vim "$vim -c 'set backupcopy=yes' $edit"
row "Vim, backupcopy=no" "$one" vim "$vim -c 'set backupcopy=no' $edit"
row "Vim, backupcopy=no" "" vim "$vim -c 'set backupcopy=no' $edit"
row "Vim, backupcopy=no" "$one --through-link" vim "$vim -c 'set backupcopy=no' $edit"
row "Vim, backupcopy=auto" "$one" vim "$vim -c 'set backupcopy=auto' $edit"
row "Emacs, default" "$one" emacs "$emacs \"\$1\" $esave"
row "Emacs, default" "" emacs "$emacs \"\$1\" $esave"
row "Emacs, default" "$one --through-link" emacs "$emacs \"\$1\" $esave"
row "Emacs, default" "$one" emacs "$emacs \"\$1\" $esave" tmp
row "Emacs, backup-by-copying nil" "$one" emacs "$emacs --eval '(setq backup-by-copying nil)' \"\$1\" $esave"
row "Emacs, backup-by-copying t" "$one" emacs "$emacs --eval '(setq backup-by-copying t)' \"\$1\" $esave"
row "Emacs, backup-by-copying t" "$one --through-link" emacs "$emacs --eval '(setq backup-by-copying t)' \"\$1\" $esave"
row "Emacs, file-precious-flag t" "$one" emacs "$emacs --eval '(setq file-precious-flag t)' \"\$1\" $esave"
row "nano" "" nano "$py \"\$TTYKEYS\" 'x\\x0f\\r\\x18' nano -I \"\$1\""
row "nano --backup" "" nano "$py \"\$TTYKEYS\" 'x\\x0f\\r\\x18' nano -I -B \"\$1\""
row "sed -i" "" sed 'sed -i s/sibling/other/ "$1"'
row "perl -pi" "" perl "perl -pi -e 's/sibling/other/' \"\$1\""
row "gawk -i inplace" "" gawk "gawk -i inplace '{sub(/sibling/, \"other\"); print}' \"\$1\""
row "Python: temporary + os.replace" "" "$py" "$py -c \"import os,sys; p=sys.argv[1]; t=p+'.tmp'; open(t,'w').write('{}'); os.replace(t,p)\" \"\$1\""
row "Python: pathlib write_text" "" "$py" "$py -c \"import pathlib,sys; pathlib.Path(sys.argv[1]).write_text('{}')\" \"\$1\""
row "Python: shutil.copy2(new, doc)" "" "$py" "$py -c \"import shutil,sys; shutil.copy2(sys.argv[1], sys.argv[2])\" \"\$NEW\" \"\$1\""
row "Python: shutil.move(new, doc)" "" "$py" "cp \"\$NEW\" \"\$WORK/n\" && $py -c \"import shutil,sys; shutil.move(sys.argv[1], sys.argv[2])\" \"\$WORK/n\" \"\$1\""
glib_set="from gi.repository import GLib; import sys; GLib.file_set_contents(sys.argv[1], b'{}')"
glib_replace="from gi.repository import Gio; import sys; Gio.File.new_for_path(sys.argv[1]).replace_contents(b'{}', None, False, Gio.FileCreateFlags.NONE, None)"
row "GLib g_file_set_contents" "$one" "$py" "$py -c \"$glib_set\" \"\$1\""
row "GLib g_file_set_contents" "" "$py" "$py -c \"$glib_set\" \"\$1\""
row "GLib g_file_replace_contents (GNOME editors)" "$one" "$py" "$py -c \"$glib_replace\" \"\$1\""
row "GLib g_file_replace_contents (GNOME editors)" "" "$py" "$py -c \"$glib_replace\" \"\$1\""
row "sponge (moreutils)" "" sponge 'sed s/sibling/other/ "$1" | sponge "$1"'
row "patch" "" patch 'cp "$1" "$WORK/n"; echo extra >> "$WORK/n"; diff -u "$1" "$WORK/n" > "$WORK/p"; patch -s "$1" "$WORK/p"'
row "cp NEW DOC (over the document)" "" cp 'cp "$NEW" "$1"'
row "cp -a NEW DOC (over the document)" "" cp 'cp -a "$NEW" "$1"'
row "a new copy made by cp, put in its place" "" cp 'cp "$1" "$WORK/c" && printf x >> "$WORK/c" && mv "$WORK/c" "$1"'
row "a new copy made by cp -a, put in its place" "" cp 'cp -a "$1" "$WORK/c" && printf x >> "$WORK/c" && mv "$WORK/c" "$1"'
row "mv across filesystems (from a cp -a copy on /dev/shm)" "" mv 't=$(mktemp /dev/shm/save-table.XXXXXX) && cp -a "$1" "$t" && printf x >> "$t" && mv "$t" "$1"'
row "rsync (from a copy)" "" rsync 'rsync -X "$1" "$WORK/c" && printf x >> "$WORK/c" && rsync "$WORK/c" "$1"'
row "rsync -X (from a copy)" "" rsync 'rsync -X "$1" "$WORK/c" && printf x >> "$WORK/c" && rsync -X "$WORK/c" "$1"'
row "tar (archive, extract over)" "" tar 'd=$(dirname "$1"); n=$(basename "$1"); tar -cf "$WORK/a.tar" -C "$d" "$n" && tar -xf "$WORK/a.tar" -C "$d"'
row "tar --xattrs (archive, extract over)" "" tar "d=\$(dirname \"\$1\"); n=\$(basename \"\$1\"); tar --xattrs -cf \"\$WORK/a.tar\" -C \"\$d\" \"\$n\" && tar --xattrs --xattrs-include='user.*' -xf \"\$WORK/a.tar\" -C \"\$d\""
row "zip, unzip -o (archive, extract over)" "" zip 'cd "$(dirname "$1")" && zip -q "$WORK/a.zip" "$(basename "$1")" && unzip -oq "$WORK/a.zip"'
row "git checkout (of a changed document)" "" git 'd=$(dirname "$1"); n=$(basename "$1"); g="git --git-dir=$WORK/g --work-tree=$d"; $g init -q && $g add "$n" && $g -c user.name=t -c user.email=t@t commit -qm x && printf x >> "$1" && $g checkout -- "$n"'
row "FileManager.copyItem, then remove and move into place" "" "$FMCOPY" '"$FMCOPY" "$1" "$WORK/copy.json"'
row "dd conv=notrunc" "" dd 'dd conv=notrunc if="$NEW" of="$1" status=none'
row "docbm save" "$one" "$docbm" '"'"$docbm"'" save --from "$NEW" "$1"'
row "docbm save" "" "$docbm" '"'"$docbm"'" save --from "$NEW" "$1"'
row "true (no save)" "" true 'true'
row "Vim, :q (no save)" "" vim "$vim -c q \"\$1\""

echo
echo "Agreement of docbm probe with the ground truth: $agreed of $rows saves ($((rows ? agreed * 100 / rows : 0))%)."
[ ${#skipped[@]} -gt 0 ] && printf 'Skipped: %s\n' "${skipped[@]}"
[ "$agreed" = "$rows" ]
