#!/usr/bin/env python3
"""A document editor's use of docbm, in Python: a notes file that links to a picture.

1. links the picture: a bookmark, stored as a line of the document;
2. saves with Document.replace, which keeps the document's key;
3. the picture is renamed: opening the document still finds it, and the next save
   stores the refreshed bookmark;
4. another program saves the document without its key (a plain atomic save): opening
   says so (DocbmError "keyMissing"), docbm.check says "keyLost", docbm.repair puts the
   key back.

Usage: editor.py [FOLDER]   (a new temporary folder, and an escrow of its own, by default)
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import docbm


def save(document: docbm.Document, bookmark: str) -> None:
    document.replace(f"My notes\npicture: {bookmark}\n".encode())


def open_link(document: docbm.Document, bookmark: str) -> str:
    """Resolves the picture link as the editor does on opening; returns the bookmark to
    keep (the refreshed one when the picture moved)."""
    resolution = document.resolve(bookmark)
    moved = " (moved: the link is refreshed)" if resolution.stale else ""
    print(f"picture: {resolution.path}{moved}")
    return resolution.refreshed or bookmark


def run(folder: Path) -> int:
    notes, picture = folder / "notes.txt", folder / "picture.png"
    picture.write_bytes(b"png\n")
    notes.write_bytes(b"My notes\n")
    print(f"docbm {docbm.version()}")
    with docbm.Document(notes) as document:
        bookmark = document.make_bookmark(picture)
        save(document, bookmark)
        print(f"saved {notes} with a link to {picture}")

        picture.rename(folder / "holiday.png")
        bookmark = open_link(document, bookmark)
        save(document, bookmark)

        # Another program's plain atomic save: a new file renamed over the document.
        other = folder / "notes.txt.other-save"
        other.write_bytes(f"My notes, edited elsewhere\npicture: {bookmark}\n".encode())
        os.replace(other, notes)
        try:
            open_link(document, bookmark)
            print("expected the lost key to be reported", file=sys.stderr)
            return 1
        except docbm.DocbmError as error:
            print(f"open link: {error.code} (recommendation: {error.recommendation})")

        found = docbm.check(notes)
        print(f"check: {found.verdict}: {found.message}")
        report = docbm.repair(notes)
        print(f"repair: {report.action}: {report.message}")
        if report.action != "restored":
            return 1
        open_link(document, bookmark)
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
