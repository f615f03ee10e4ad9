"""The user's escrow from Python: listed, exported for another machine, imported there."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import docbm


def test_a_key_travels_to_another_escrow_and_repairs_a_copy_there(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes, picture = folder / "notes.txt", folder / "picture.png"
    notes.write_bytes(b"notes\n")
    picture.write_bytes(b"picture\n")
    with docbm.Document(notes) as document:
        bookmark = document.make_bookmark(picture)
        document.replace(f"{bookmark}\n".encode())
    entries = docbm.escrow_entries()
    assert len(entries) == 1 and entries[0].created_ns > 0
    assert [(d.path, d.origin) for d in entries[0].documents][-1] == (str(notes), "saved")

    export = tmp_path / "keys.escrow"
    sent = docbm.export_escrow(export)
    assert (sent.keys, sent.documents) == (1, len(entries[0].documents))
    assert os.stat(export).st_mode & 0o7777 == 0o600
    with pytest.raises(docbm.DocbmError) as exists:
        docbm.export_escrow(export)
    assert exists.value.code == docbm.Code.DOCUMENT_EXISTS
    assert docbm.export_escrow(export, replace=True).keys == 1

    # The other machine: an escrow of its own, and the document arrived without its key.
    other = tmp_path / "other-escrow"
    other.mkdir(mode=0o700)
    monkeypatch.setenv("DOCBM_ESCROW_DIR", str(other))
    os.removexattr(notes, "user.docbm.key")
    assert docbm.escrow_entries() == []
    assert docbm.check(notes).verdict == docbm.Verdict.KEY_LOST
    received = docbm.import_escrow(export)
    assert (received.keys, received.keys_already_held) == (1, 0)
    assert docbm.import_escrow(export).keys_already_held == 1
    assert [entry.key for entry in docbm.escrow_entries()] == [entries[0].key]
    assert docbm.repair(notes).action == docbm.RepairAction.RESTORED


def test_an_export_others_can_read_is_refused(folder: Path, tmp_path: Path) -> None:
    export = tmp_path / "open.escrow"
    export.write_bytes(b"not an export\n")
    export.chmod(0o600)
    with pytest.raises(docbm.DocbmError) as damaged:
        docbm.import_escrow(export)
    assert damaged.value.code == docbm.Code.ESCROW_DAMAGED
    export.chmod(0o644)
    with pytest.raises(docbm.DocbmError) as untrusted:
        docbm.import_escrow(export)
    assert untrusted.value.code == docbm.Code.ESCROW_UNTRUSTED
