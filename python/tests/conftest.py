"""Fixtures: a scratch folder on a filesystem with user extended attributes, and an escrow
of the test's own (never the user's)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    probe = tmp_path / "probe"
    probe.write_bytes(b"")
    try:
        os.setxattr(probe, "user.docbm.probe", b"1")
    except OSError as error:
        pytest.skip(f"{tmp_path} has no user extended attributes ({error}); docbm keeps keys in them")
    probe.unlink()
    escrow = tmp_path / "escrow"
    escrow.mkdir(mode=0o700)
    monkeypatch.setenv("DOCBM_ESCROW_DIR", str(escrow))
    documents = tmp_path / "documents"
    documents.mkdir()
    return documents


@pytest.fixture
def notes(folder: Path) -> Path:
    """A document, `notes.txt`, in the scratch folder."""
    path = folder / "notes.txt"
    path.write_bytes(b"notes\n")
    return path


@pytest.fixture
def picture(folder: Path) -> Path:
    """A target, `picture.png`, in the scratch folder."""
    path = folder / "picture.png"
    path.write_bytes(b"png\n")
    return path
