#!/usr/bin/env bash
# Which copy, archive, backup and sync tools keep a document's key, measured.
#
# Makes a project (board.json with a bookmark to images/cat.png, made with docbm, so that
# the document carries its key in user.docbm.key) and takes a fresh copy of it through each
# tool: copied, or archived or backed up and then extracted or restored. The copy's key is
# judged with getfattr against the original's, and `docbm check` says what it sees in the
# copy. Prints a Markdown table, one row per command; with --update-doc, also writes it
# between the `<!-- measured:travel begin -->` and `<!-- measured:travel end -->` markers of
# docs/travel.md. A tool that is not installed is listed as such.
#
#   Benchmarks/travel-table.sh [--update-doc] [FOLDER]     (default: .build/travel-table)
#
# FOLDER must be on a filesystem with user extended attributes. Needs: docbm built (swift
# build), attr (getfattr), and for the rows: rsync, tar, libarchive-tools (bsdtar), cpio,
# zip/unzip, p7zip-full, borgbackup, restic, duplicity, rdiff-backup, rclone, unison, git,
# libglib2.0-bin (gio), python3, pax, and (as root) ntfs-3g, exfatprogs and exfat-fuse. `make travel-table`
# installs them. Runs about a minute.
set -u
update_doc=0
[ "${1:-}" = --update-doc ] && { update_doc=1; shift; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
docbm=${DOCBM:-$root/.build/debug/docbm}
folder=${1:-$root/.build/travel-table}
[ -x "$docbm" ] || { echo "build docbm first: swift build" >&2; exit 1; }
mkdir -p "$folder"
folder=$(cd "$folder" && pwd -P)
# The measurement keeps its own escrow: the user's is never touched.
export DOCBM_ESCROW_DIR="$folder/escrow"
rm -rf "$folder/escrow" "$folder/original" "$folder"/row.*

# The original project.
original=$folder/original/project
mkdir -p "$original/images"
printf 'PNG cat\n' > "$original/images/cat.png"
printf '{}\n' > "$original/board.json"
bookmark=$("$docbm" bookmark "$original/board.json" "$original/images/cat.png") || exit 1
printf '{"image": "%s"}\n' "$bookmark" | "$docbm" save "$original/board.json" || exit 1
key=$(getfattr --only-values -n user.docbm.key "$original/board.json" 2>/dev/null | sha256sum)
[ -n "$key" ] || { echo "$folder has no user extended attributes: pick another folder" >&2; exit 1; }

rows=()
# row TOOL COMMAND SNIPPET [PROGRAM]: COMMAND is the table's Markdown for what was run;
# with expect_refusal=1 set for the call, the tool refusing is the row's result ("refused").
# PROGRAM (the first word of TOOL unless given) must be installed. Runs SNIPPET with bash in a fresh folder holding
# src/project (a `cp -a` of the original) and an empty dst/, then judges the board.json
# found under dst/.
row() {
  local tool=$1 command=$2 snippet=$3 program=${4:-${1%% *}} work copy verdict result
  if ! command -v "$program" >/dev/null 2>&1; then
    rows+=("| $tool | $command | not measured: $program is not installed | |")
    return
  fi
  work=$(mktemp -d "$folder/row.XXXXXX")
  mkdir -p "$work/src" "$work/dst" "$work/home"
  cp -a "$original" "$work/src/"
  if ! (cd "$work" && HOME="$work/home" W="$work" bash -c "$snippet") >"$work/log" 2>&1 </dev/null; then
    # A refusal the row is there to show (expect_refusal=1) is its result; any other
    # failure is a fault of the measurement.
    if [ "${expect_refusal:-0}" = 1 ]; then
      # The tool's own words, without the scratch path they name.
      rows+=("| $tool | $command | refused: $(tail -n 1 "$work/log" | sed 's/.*: //' | tr '|' '/') | |")
    else
      rows+=("| $tool | $command | failed: $(tail -n 1 "$work/log" | tr '|' '/') | |")
    fi
    rm -rf "$work"
    return
  fi
  copy=$(find "$work/dst" -name board.json -path '*project/board.json' | head -n 1)
  if [ -z "$copy" ]; then
    rows+=("| $tool | $command | failed: no copy of board.json | |")
  else
    if [ "$(getfattr --only-values -n user.docbm.key "$copy" 2>/dev/null | sha256sum)" = "$key" ]; then
      result="kept"
    else
      result="**lost**"
    fi
    verdict=$("$docbm" check --all "$copy" 2>/dev/null | head -n 1 | cut -d ' ' -f 1)
    rows+=("| $tool | $command | $result | \`${verdict:-?}\` |")
  fi
  rm -rf "$work"
}

py=/usr/bin/python3
row "cp" '`cp -a`' 'cp -a src/project dst/'
row "cp" '`cp -r --preserve=xattr`' 'cp -r --preserve=xattr src/project dst/'
row "cp" '`cp -r`' 'cp -r src/project dst/'
row "cp" '`cp -rp` (`-p`: mode, owner, times)' 'cp -rp src/project dst/'
row "install" '`install -D` (the document)' 'install -D -m 644 src/project/board.json dst/project/board.json'
row "mv" '`mv` (same filesystem)' 'mv src/project dst/'
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
  row "mv" '`mv` to tmpfs (`/dev/shm`) and back' \
    'shm=$(mktemp -d /dev/shm/travel.XXXXXX) && mv src/project "$shm/" && mv "$shm/project" dst/; rm -rf "$shm"'
fi
row "rsync" '`rsync -aX`' 'rsync -aX src/project dst/'
row "rsync" '`rsync -a`' 'rsync -a src/project dst/'
row "rsync" '`rsync -aA` (ACLs, not other attributes)' 'rsync -aA src/project dst/'
row "GNU tar" '`tar --xattrs -c`, `tar --xattrs -x`' 'tar --xattrs -C src -cf a.tar project && tar --xattrs -C dst -xf a.tar' tar
row "GNU tar" '`tar --xattrs -c`, `tar -x`' 'tar --xattrs -C src -cf a.tar project && tar -C dst -xf a.tar' tar
row "GNU tar" '`tar -c`, `tar -x`' 'tar -C src -cf a.tar project && tar -C dst -xf a.tar' tar
# ustar has no room for attributes (GNU tar refuses --xattrs with it).
row "GNU tar" '`tar --format=ustar -c`, `tar --xattrs -x`' \
  'tar --format=ustar -C src -cf a.tar project && tar --xattrs -C dst -xf a.tar' tar
row "bsdtar" '`bsdtar -c`, `bsdtar -xp`' 'bsdtar -C src -cf a.tar project && bsdtar -C dst -xpf a.tar'
row "bsdtar" '`bsdtar -c`, `bsdtar -x`' 'bsdtar -C src -cf a.tar project && bsdtar -C dst -xf a.tar'
row "bsdtar" '`bsdtar --format ustar -c`, `bsdtar -xp`' \
  'bsdtar --format ustar -C src -cf a.tar project && bsdtar -C dst -xpf a.tar'
row "pax" '`pax -w`, `pax -r -p e`' '(cd src && pax -wf ../a.pax project) && (cd dst && pax -r -p e -f ../a.pax)'
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  # bsdtar restores extended attributes without -p only for root: the same as a user.
  row "bsdtar" '`bsdtar -c`, `bsdtar -x` as a user (`nobody`)' \
    'bsdtar -C src -cf a.tar project && chmod 0777 dst && chmod 0644 a.tar && chmod 0755 . && setpriv --reuid=65534 --regid=65534 --clear-groups bsdtar -C dst -xf a.tar'
fi
row "cpio" '`cpio -o -H newc`, `cpio -id`' '(cd src && find project | cpio -o -H newc > ../a.cpio) && (cd dst && cpio -id < ../a.cpio)'
row "zip" '`zip -r`, `unzip`' '(cd src && zip -qr ../a.zip project) && (cd dst && unzip -q ../a.zip)'
row "7z" '`7z a`, `7z x`' '(cd src && 7z a -bd ../a.7z project) && (cd dst && 7z x -bd ../a.7z)'
row "borg" '`borg create`, `borg extract`' \
  'export BORG_REPO=$W/repo BORG_UNKNOWN_UNENCRYPTED_REPO_ACCESS_IS_OK=yes && borg init -e none && (cd src && borg create ::a project) && (cd dst && borg extract ::a)'
row "restic" '`restic backup`, `restic restore`' \
  'export RESTIC_REPOSITORY=$W/repo RESTIC_PASSWORD=travel && restic init -q && (cd src && restic backup -q project) && restic restore latest -q --target dst'
row "duplicity" '`duplicity full`, `duplicity restore`' \
  'duplicity full --no-encryption src/project file://$W/repo && duplicity restore --no-encryption file://$W/repo dst/project'
row "rdiff-backup" '`rdiff-backup backup`, `rdiff-backup restore`' \
  'rdiff-backup backup src/project repo && rdiff-backup restore --at now repo dst/project'
row "rclone" '`rclone copy --metadata`' 'rclone copy --metadata src/project dst/project'
row "rclone" '`rclone copy`' 'rclone copy src/project dst/project'
row "rclone" '`rclone sync`' 'rclone sync src/project dst/project'
row "unison" '`unison -batch`' 'unison src/project dst/project -batch -auto -silent'
row "git" '`git commit`, `git clone`' \
  '(cd src/project && git init -q && git add . && git -c user.email=t@t -c user.name=t commit -qm t) && git clone -q src/project dst/project'
row "git" '`git archive`, `tar -x`' \
  '(cd src/project && git init -q && git add . && git -c user.email=t@t -c user.name=t commit -qm t && git archive --prefix=project/ -o "$W/a.tar" HEAD) && tar -C dst -xf a.tar'
row "git" '`git bundle create`, `git clone`' \
  '(cd src/project && git init -q && git add . && git -c user.email=t@t -c user.name=t commit -qm t && git bundle create -q "$W/a.bundle" --all) && git clone -q a.bundle dst/project'
row "gio" '`gio copy -p` (the document)' 'mkdir dst/project && gio copy -p src/project/board.json dst/project/'
row "gio" '`gio copy` (the document)' 'mkdir dst/project && gio copy src/project/board.json dst/project/'
expect_refusal=1 row "gio" '`gio copy` (the folder)' 'gio copy src/project dst/'
# Other filesystems, each an image on a loop device mounted in a mount namespace of its own
# (root only): the project copied there with `cp -a` and back. cp fails to keep what the
# filesystem cannot hold (an owner, attributes) and says so; the row judges what arrived.
filesystem_row() {
  local name=$1 command=$2 make=$3 mount=$4 program=$5
  if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null; then
    rows+=("| $name | $command | not measured: needs root, to mount an image | |")
    return
  fi
  row "$name" "$command" \
    "truncate -s 64M img && $make img >/dev/null && mkdir m && unshare -m --propagation private sh -ec 'device=\$(losetup -f --show img); $mount \$device m; cp -a src/project m/ || true; cp -a m/project dst/ || true; umount m; losetup -d \$device'" \
    "$program"
}
filesystem_row "NTFS (ntfs-3g)" '`cp -a` to NTFS through ntfs-3g and back' 'mkntfs -F -q' 'ntfs-3g' mkntfs
# Linux's own exFAT driver where the kernel has it, else the FUSE one (exfat-fuse).
if grep -qw exfat /proc/filesystems; then
  filesystem_row "exFAT" '`cp -a` to exFAT (Linux'"'"'s driver) and back' 'mkfs.exfat' 'mount -t exfat' mkfs.exfat
else
  filesystem_row "exFAT" '`cp -a` to exFAT (exfat-fuse) and back' 'mkfs.exfat' mount.exfat-fuse mount.exfat-fuse
fi
row "Python" '`shutil.copytree`' "$py"' -c "import shutil; shutil.copytree(\"src/project\", \"dst/project\")"' "$py"
row "Python" '`shutil.copytree(copy_function=shutil.copy)`' \
  "$py"' -c "import shutil; shutil.copytree(\"src/project\", \"dst/project\", copy_function=shutil.copy)"' "$py"
row "Python" '`shutil.copy2` (the document)' \
  "$py"' -c "import os, shutil; os.mkdir(\"dst/project\"); shutil.copy2(\"src/project/board.json\", \"dst/project\")"' "$py"

# The versions measured, one line each, of the tools that are installed.
versions() {
  local line
  for line in "cp --version" "rsync --version" "tar --version" "bsdtar --version" "cpio --version" \
    "7z i" "borg --version" "restic version" "duplicity --version" "rdiff-backup --version" "rclone version" \
    "unison -version" "git --version" "pax --version" "ntfs-3g --version" "mkfs.exfat --version"; do
    command -v "${line%% *}" >/dev/null 2>&1 || continue
    $line 2>&1 | grep -m 1 -E '[0-9]+\.[0-9]+' | sed 's/ - libarchive.*//; s/ compiled with.*//; s/ : Copyright.*//; s/^ *//' | tr '|' '/'
  done
  command -v zip >/dev/null 2>&1 && zip -h 2>&1 | grep -m 1 -o 'Zip [0-9.]*'
  command -v gio >/dev/null 2>&1 && echo "gio $(gio version)"
  "$py" --version
}
table=$(
  echo "| tool | command | the copy's key | \`docbm check\` on the copy |"
  echo "|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  printf 'Measured as %s on %s (Linux %s), with: %s.\n' \
    "$( [ "$(id -u)" = 0 ] && echo root || echo a user)" "$(findmnt -n -o FSTYPE -T "$folder")" "$(uname -r)" \
    "$(versions | grep -v '^$' | tr -s ' ' | paste -sd ';' | sed 's/;/; /g')"
)
printf '%s\n' "$table"
rm -rf "$folder/original" "$folder/escrow"

doc=$root/docs/travel.md
if [ "$update_doc" = 1 ]; then
  TABLE="$table" "$py" - "$doc" <<'PY'
import os, sys
path = sys.argv[1]
begin, end = "<!-- measured:travel begin -->", "<!-- measured:travel end -->"
with open(path) as file:
    text = file.read()
start, stop = text.index(begin) + len(begin), text.index(end)
with open(path, "w") as file:
    file.write(text[:start] + "\n" + os.environ["TABLE"] + "\n" + text[stop:])
PY
  echo "docs/travel.md: table written"
fi
