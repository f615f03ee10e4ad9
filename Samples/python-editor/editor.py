#!/usr/bin/env python3
"""A document editor's use of docbm, in Python: a notes file that links to a picture.

1. creates the notes: the link (a bookmark) is made before the first save, and the file
   is created with the key that signed it; the notes go on the editor's list of recent
   files (a store), and a watcher follows them;
2. the picture is renamed: opening the notes still finds it, and the next save stores the
   refreshed bookmark (Document.replace keeps the document's key);
3. Save As into another folder: the link is made anew for the copy's folder, then the
   copy is saved with the key;
4. the notes are renamed: the watcher says so, and the recent files follow them;
5. another program saves the notes without the key (a plain atomic save): the watcher
   says the key was lost, opening says so (DocbmError KEY_MISSING), docbm.check says
   KEY_LOST, and docbm.repair puts the key back.

Usage: editor.py [FOLDER]   (a new temporary folder, and an escrow of its own, by default)
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import docbm


def contents(bookmark: str) -> bytes:
    return f"My notes\npicture: {bookmark}\n".encode()


def open_link(document: docbm.Document, bookmark: str) -> str:
    """Resolves the picture link as the editor does on opening; returns the bookmark to
    keep (the refreshed one when the picture moved)."""
    resolution = document.resolve(bookmark)
    moved = " (moved: the link is refreshed)" if resolution.stale else ""
    print(f"picture: {resolution.path}{moved}")
    return resolution.refreshed or bookmark


def wait_for(watcher: docbm.Watcher, kind: docbm.EventKind) -> docbm.WatchEvent:
    """The next event of ``kind``, printing the events on the way; the editor's main loop
    would be woken by ``watcher.fileno()`` instead."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for event in watcher.wait(timeout=deadline - time.monotonic()):
            print(f"watcher: {event.kind}: {event.message}")
            if event.kind == kind:
                return event
    raise TimeoutError(f"no {kind} event came")


def run(folder: Path) -> int:
    notes, picture = folder / "notes.txt", folder / "picture.png"
    copies = folder / "copies"
    picture.write_bytes(b"png\n")
    copies.mkdir()
    print(f"docbm {docbm.version()}")

    # 1. A new document, on the recent files, followed by a watcher.
    with docbm.NewDocument(notes) as draft:
        bookmark = draft.make_bookmark(picture)
        document = draft.create(contents(bookmark))
    print(f"created {notes} with a link to {picture}")
    recents = docbm.Store(folder / "recents.sqlite", recents_limit=10)
    recents.add(notes, key="notes")
    watcher = docbm.Watcher.documents([notes])
    with document, recents, watcher:
        # 2. The picture is renamed.
        picture.rename(folder / "holiday.png")
        bookmark = open_link(document, bookmark)
        document.replace(contents(bookmark))
        # A save puts the notes first on the recent files, with a link to the file as saved.
        recents.add(notes, key="notes")

        # 3. Save As: the link made for the copy's folder, then the copy with the key.
        made = document.reanchor(copies / "notes.txt", [bookmark])
        if made[0].outcome != docbm.ReanchorOutcome.REANCHORED or made[0].bookmark is None:
            print(f"Save As: the link could not be made for the copy: {made[0].message}", file=sys.stderr)
            return 1
        with document.save_copy(copies / "notes.txt", contents(made[0].bookmark)) as copy:
            print(f"saved as {copy.path}; its link:")
            open_link(copy, made[0].bookmark)

        # 4. The notes are renamed: the watcher and the recent files follow.
        renamed = folder / "notes-final.txt"
        notes.rename(renamed)
        wait_for(watcher, docbm.EventKind.MOVED)
        record = recents.resolve("notes")
        print(f"recent files: {record.path} ({record.state})")
        document.close()
        document = docbm.Document(renamed)

        # 5. Another program's plain atomic save: a new file renamed over the document.
        other = folder / "notes.txt.other-save"
        other.write_bytes(b"My notes, edited elsewhere\n" + contents(bookmark))
        os.replace(other, renamed)
        wait_for(watcher, docbm.EventKind.KEY_LOST)
        try:
            open_link(document, bookmark)
            print("expected the lost key to be reported", file=sys.stderr)
            return 1
        except docbm.DocbmError as error:
            print(f"open link: {error.code} (recommendation: {error.recommendation})")

        found = docbm.check(renamed)
        print(f"check: {found.verdict}: {found.message}")
        report = docbm.repair(renamed)
        print(f"repair: {report.action}: {report.message}")
        if report.action != docbm.RepairAction.RESTORED:
            return 1
        open_link(document, bookmark)
        document.close()
    return 0


def main() -> int:
    if len(sys.argv) > 2:
        print(f"usage: {sys.argv[0]} [FOLDER]", file=sys.stderr)
        return 2
    if len(sys.argv) == 2:
        return run(Path(sys.argv[1]).resolve())
    # A folder under the working folder (not /tmp, which may lack user xattrs) and an
    # escrow of the sample's own, both removed afterwards.
    with tempfile.TemporaryDirectory(dir=".", prefix="python-editor-") as scratch:
        os.environ["DOCBM_ESCROW_DIR"] = str(Path(scratch, "escrow").resolve())
        os.mkdir(os.environ["DOCBM_ESCROW_DIR"], 0o700)
        documents = Path(scratch, "documents").resolve()
        documents.mkdir()
        return run(documents)


if __name__ == "__main__":
    sys.exit(main())
