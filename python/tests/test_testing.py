"""docbm.testing: faults an app's own tests install, failing as the real failures do."""

from __future__ import annotations

import errno
import os
import threading
from pathlib import Path

import pytest

import docbm
from docbm.testing import crash_before_rename, resolution_fault, resolution_gate, save_fault, store_read_fault


def test_a_save_fault_fails_the_next_save_as_a_full_disk_would(folder: Path) -> None:
    notes = folder / "notes.txt"
    notes.write_bytes(b"kept\n")
    with docbm.Document(notes) as document:
        with save_fault(docbm.SaveStep.WRITE, errno.ENOSPC, folder=folder):
            with pytest.raises(docbm.DocbmError) as failure:
                document.replace(b"lost\n")
            assert notes.read_bytes() == b"kept\n"
            document.replace(b"saved\n")  # only the next save fails
        assert failure.value.code == docbm.Code.NO_SPACE
        assert failure.value.recommendation == docbm.Recommendation.FREE_SPACE
        assert failure.value.step == docbm.SaveStep.WRITE
        assert failure.value.errno == errno.ENOSPC
    assert notes.read_bytes() == b"saved\n"


def test_overlapping_faults_are_refused(folder: Path) -> None:
    inner = folder / "inner"
    inner.mkdir()
    with save_fault(docbm.SaveStep.SWAP, errno.EIO, folder=folder):
        with pytest.raises(docbm.DocbmError) as failure:
            with save_fault(docbm.SaveStep.WRITE, errno.EIO, folder=inner):
                pass
        assert failure.value.code == docbm.Code.INVALID_ARGUMENT
    with save_fault(docbm.SaveStep.WRITE, errno.EIO, folder=inner):  # ended: free again
        pass


def test_a_crash_before_the_rename_leaves_the_new_version_until_the_block_ends(folder: Path) -> None:
    notes = folder / "notes.txt"
    notes.write_bytes(b"old\n")
    with docbm.Document(notes) as document:
        with crash_before_rename(folder=folder):
            with pytest.raises(docbm.DocbmError) as failure:
                document.replace(b"new\n")
            assert failure.value.code == docbm.Code.IO_ERROR
            assert failure.value.step == docbm.SaveStep.SWAP
            assert len(os.listdir(folder)) == 2
        assert os.listdir(folder) == ["notes.txt"]
    assert notes.read_bytes() == b"old\n"


def test_a_resolution_fault_fails_the_targets_in_its_folder_only(folder: Path) -> None:
    images = folder / "images"
    images.mkdir()
    cat, notes, plan = images / "cat.png", folder / "board.txt", folder / "plan.md"
    for path in (cat, notes, plan):
        path.write_bytes(b"x\n")
    with docbm.Document(notes) as board:
        lost, kept = board.make_bookmark(cat), board.make_bookmark(plan)
        with resolution_fault(docbm.Code.MISSING, folder=folder, targets=images):
            with pytest.raises(docbm.DocbmError) as failure:
                board.resolve(lost)
            assert board.resolve(kept).path == str(plan)
        assert failure.value.code == docbm.Code.MISSING
        assert failure.value.recommendation == docbm.Recommendation.FORGET
        assert failure.value.last_known_path == str(cat)
        assert board.resolve(lost).path == str(cat)
        with pytest.raises(docbm.DocbmError) as refused:
            with resolution_fault(docbm.Code.TAMPERED, folder=folder):
                pass
        assert refused.value.code == docbm.Code.INVALID_ARGUMENT


def test_a_gate_holds_a_resolve_until_the_test_opens_it(folder: Path) -> None:
    notes, cat = folder / "board.txt", folder / "cat.png"
    notes.write_bytes(b"board\n")
    cat.write_bytes(b"cat\n")
    with docbm.Document(notes) as board:
        bookmark = board.make_bookmark(cat)
        found = []
        with resolution_gate(folder=folder) as gate:
            loading = threading.Thread(target=lambda: found.append(board.resolve(bookmark).path))
            loading.start()
            gate.wait_until_held()
            assert gate.held_count == 1 and found == []
            gate.open()
            loading.join()
        assert found == [str(cat)]
        with pytest.raises(ValueError):
            gate.open()


def test_a_store_read_fault_fails_opening_the_store(folder: Path) -> None:
    path = folder / "recents.sqlite"
    docbm.Store(path).close()
    with store_read_fault(folder=folder):
        with pytest.raises(docbm.DocbmError) as failure:
            docbm.Store(path)
    assert failure.value.code == docbm.Code.IO_ERROR
    assert failure.value.errno == errno.EIO
    docbm.Store(path).close()
