"""One error model in three languages: each failure docbm can be made to meet here, made
through the docbm command (Swift) and through this package (over C), reports the same code,
recommendation, message, path, last known path, errno, system call and step.

(test_docbm.py compares the resolve and save failures that need only a folder.)"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, Iterator, Tuple

import pytest

import docbm
from error_pair import Report, command, pair

KEY = "user.docbm.key"

#: Each code, and the test that makes it fail through both languages.
MADE = {
    docbm.Code.KEY_MISSING: "test_docbm.test_errors_are_the_same_in_swift_c_and_python",
    docbm.Code.KEY_MISMATCH: "test_docbm.test_errors_are_the_same_in_swift_c_and_python",
    docbm.Code.KEY_MALFORMED: "test_docbm.test_errors_are_the_same_in_swift_c_and_python",
    docbm.Code.TAMPERED: "test_docbm.test_errors_are_the_same_in_swift_c_and_python",
    docbm.Code.CORRUPT: "test_docbm.test_errors_are_the_same_in_swift_c_and_python",
    docbm.Code.NOT_FOUND: "test_docbm.test_errors_are_the_same_in_swift_c_and_python",
    docbm.Code.NOT_FOUND_NEARBY: "test_docbm.test_errors_are_the_same_in_swift_c_and_python",
    docbm.Code.UNSUPPORTED_FILE_TYPE: "test_docbm.test_errors_are_the_same_in_swift_c_and_python",
    docbm.Code.HARD_LINKED: "test_docbm.test_save_errors_are_the_same_in_swift_c_and_python",
    docbm.Code.READ_ONLY_DOCUMENT: "test_docbm.test_save_errors_are_the_same_in_swift_c_and_python",
    docbm.Code.UNSUPPORTED_VERSION: "test_a_resolve_that_cannot_read_or_find",
    docbm.Code.PATH_TOO_LONG: "test_a_resolve_that_cannot_read_or_find",
    docbm.Code.MISSING: "test_a_resolve_that_cannot_read_or_find",
    docbm.Code.ESCROW_DAMAGED: "test_an_escrow_docbm_does_not_trust",
    docbm.Code.ESCROW_UNTRUSTED: "test_an_escrow_docbm_does_not_trust",
    docbm.Code.NOT_A_STORE: "test_a_store_docbm_cannot_use",
    docbm.Code.STORE_CORRUPT: "test_a_store_docbm_cannot_use",
    docbm.Code.STORE_NEWER_VERSION: "test_a_store_docbm_cannot_use",
    docbm.Code.STORE_UNTRUSTED: "test_a_store_docbm_cannot_use",
    docbm.Code.IMMUTABLE: "test_an_immutable_document",
    docbm.Code.PERMISSION_DENIED: "test_a_document_the_user_may_not_read",
    docbm.Code.UNSUPPORTED_FILESYSTEM: "test_filesystems_that_refuse",
    docbm.Code.READ_ONLY_FILESYSTEM: "test_filesystems_that_refuse",
    docbm.Code.NO_SPACE: "test_filesystems_that_refuse",
}

#: The codes no test makes through both, and why.
NOT_MADE = {
    docbm.Code.VOLUME_UNAVAILABLE: "needs a removable volume taken away; the resolution faults make it in each language",
    docbm.Code.IO_ERROR: "needs a failing disk (the FUSE fault injector, in the Swift suite)",
    docbm.Code.SYSTEM_FAILURE: "needs the system to fail a call that does not fail (memory, descriptors)",
    docbm.Code.ATTRIBUTE_COPY_FAILED: "needs a filesystem that fails one attribute (the FUSE fault injector)",
    docbm.Code.WRITER_FAILED: "only a writer an app passes fails so; the command line has none",
    docbm.Code.NOTHING_WRITTEN: "only a writer an app passes writes nothing; the command line has none",
    docbm.Code.DOCUMENT_UNPROVEN: "a repair's refusal, reported in its result, not raised",
    docbm.Code.OWNER_CHANGED: "needs a user saving another user's document in a folder of their own",
    docbm.Code.DOCUMENT_EXISTS: "only creating a new document meets it; the command line creates none",
    docbm.Code.PORTAL_REFUSES_ATTRIBUTES: "needs a document portal (the Swift suite runs one)",
    docbm.Code.PORTAL_HOST_PATH_UNKNOWN: "needs a document portal (the Swift suite runs one)",
    docbm.Code.OUTSIDE_SANDBOX: "needs a sandboxed app",
    docbm.Code.INVALID_ARGUMENT: "a wrong call, which the command line's parser refuses before docbm runs",
    docbm.Code.NO_SUCH_KEY: "the command line lists keys no record has instead of failing",
    docbm.Code.STORE_KEY_LOST: "needs the store file's key lost with no escrowed copy (the C tests make it)",
}


@pytest.fixture(autouse=True)
def needs_the_command() -> None:
    if not command():
        pytest.skip("DOCBM_COMMAND names no docbm command to compare with (make test-python sets it)")


def assert_same(code: docbm.Code, reports: Tuple[Report, Report]) -> None:
    swift, python = reports
    assert swift["code"] == code, (swift, python)
    assert swift == python, code


def test_every_code_is_compared_or_said_why_not() -> None:
    assert not set(MADE) & set(NOT_MADE)
    assert set(MADE) | set(NOT_MADE) == set(docbm.Code)


def test_a_resolve_that_cannot_read_or_find(folder: Path, notes: Path, picture: Path) -> None:
    document, target = notes, picture
    with docbm.Document(document) as opened:
        bookmark = opened.make_bookmark(target)
    # A key of a format this docbm does not read (a later version's).
    later = folder / "later.txt"
    later.write_bytes(b"later\n")
    key = bytearray(os.getxattr(document, KEY))
    key[4] += 1
    os.setxattr(later, KEY, bytes(key))
    assert_same(docbm.Code.UNSUPPORTED_VERSION, pair("resolve", str(later), bookmark))
    long_name = str(folder / ("n" * 300) / "notes.txt")
    assert_same(docbm.Code.PATH_TOO_LONG, pair("resolve", long_name, bookmark))
    # Gone from every folder of its filesystem, searched to the end.
    target.unlink()
    assert_same(docbm.Code.MISSING, pair("resolve-everywhere", str(document), bookmark))


def test_an_escrow_docbm_does_not_trust(folder: Path) -> None:
    escrow = Path(os.environ["DOCBM_ESCROW_DIR"])
    export = str(folder / "keys.docbm")
    (escrow / "escrow.sqlite").write_bytes(b"not a database, though it has the name of one\n" * 100)
    (escrow / "escrow.sqlite").chmod(0o600)
    assert_same(docbm.Code.ESCROW_DAMAGED, pair("export", export))
    escrow.chmod(0o777)
    try:
        assert_same(docbm.Code.ESCROW_UNTRUSTED, pair("export", export))
    finally:
        escrow.chmod(0o700)
    assert not os.path.exists(export)


def test_a_store_docbm_cannot_use(folder: Path, picture: Path) -> None:
    target = picture
    assert_same(docbm.Code.NOT_A_STORE, pair("store", str(folder)))
    damaged = folder / "damaged.store"
    damaged.write_bytes(b"neither a database nor JSON\n")
    assert_same(docbm.Code.STORE_CORRUPT, pair("store", str(damaged)))
    newer = folder / "newer.store"
    with docbm.Store(newer) as store:
        store.add(target, "picture")
    with sqlite3.connect(newer) as database:
        database.execute("PRAGMA user_version = 9999")
    database.close()
    assert_same(docbm.Code.STORE_NEWER_VERSION, pair("store", str(newer)))
    shared = folder / "shared.store"
    with docbm.Store(shared) as store:
        store.add(target, "picture")
    shared.chmod(0o666)
    assert_same(docbm.Code.STORE_UNTRUSTED, pair("store", str(shared)))
    assert damaged.read_bytes() == b"neither a database nor JSON\n"


def test_an_immutable_document(folder: Path, notes: Path) -> None:
    document = notes
    contents = folder / "contents.txt"
    contents.write_bytes(b"new\n")
    with docbm.Document(document) as opened:
        opened.make_bookmark(contents)
    made = subprocess.run(["chattr", "+i", str(document)], capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mark a file immutable here (chattr: {made.stderr.strip()}); needs root on ext4, btrfs or xfs")
    try:
        assert_same(docbm.Code.IMMUTABLE, pair("save", str(document), str(contents)))
    finally:
        subprocess.run(["chattr", "-i", str(document)], check=True)
    assert document.read_bytes() == b"notes\n"


def _reachable_by_others(path: Path) -> bool:
    """Whether a user with no rights of its own can read ``path`` (every folder above it
    searchable by others, and the file readable by them)."""
    path = path.resolve()
    folders_open = all(parent.stat().st_mode & 0o001 for parent in path.parents)
    return folders_open and bool(path.stat().st_mode & 0o004)


def test_a_document_the_user_may_not_read(folder: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root, to make the two failures as the user nobody")
    import docbm as package

    program = Path(__file__).with_name("error_pair.py")
    needed = [Path(sys.executable), program, Path(package.__file__), Path(os.environ["DOCBM_COMMAND"])]
    needed += [Path(os.environ["DOCBM_LIBRARY"])] if os.environ.get("DOCBM_LIBRARY") else []
    unreachable = [str(path) for path in needed if not _reachable_by_others(path)]
    if unreachable:
        pytest.skip(f"the user nobody cannot read {', '.join(unreachable)}")
    # A document of root's that only root may read, in a folder anyone may enter; nobody's
    # escrow is its own.
    shared = Path(tempfile.mkdtemp(prefix="docbm-parity-"))
    try:
        shared.chmod(0o755)
        document = shared / "private.txt"
        document.write_bytes(b"private\n")
        target = shared / "picture.png"
        target.write_bytes(b"png\n")
        with docbm.Document(document) as opened:
            bookmark = opened.make_bookmark(target)
        document.chmod(0o600)
        escrow = shared / "nobody-escrow"
        escrow.mkdir(mode=0o700)
        os.chown(escrow, 65534, 65534)
        ran = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, str(program),
             "resolve", str(document), bookmark],
            capture_output=True, text=True, env={**os.environ, "DOCBM_ESCROW_DIR": str(escrow)},
        )
        assert ran.returncode == 0, ran.stderr
        both = json.loads(ran.stdout)
        assert_same(docbm.Code.PERMISSION_DENIED, (both["swift"], both["python"]))
    finally:
        shutil.rmtree(shared)


@pytest.fixture
def namespace_script(tmp_path: Path) -> Iterator[Path]:
    """A shell script run in a mount namespace of its own (the mounts it makes vanish with it)."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("needs root and unshare, to mount filesystems in a namespace of the test's own")
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"cannot make a mount namespace here: {probe.stderr.strip()}")
    yield tmp_path / "in-namespace.sh"


def test_filesystems_that_refuse(folder: Path, picture: Path, namespace_script: Path) -> None:
    pair_program = Path(__file__).with_name("error_pair.py")
    contents = folder / "contents.bin"
    contents.write_bytes(os.urandom(256 * 1024))
    target = picture
    ramfs, read_only, full = folder / "ramfs", folder / "read-only", folder / "full"
    for point in (ramfs, read_only, full):
        point.mkdir()
    run = f"{sys.executable} {pair_program}"
    namespace_script.write_text(
        "set -e\n"
        # ramfs keeps no user extended attributes: no key can be made there.
        f"mount -t ramfs docbm-ramfs {ramfs}\n"
        f"echo notes > {ramfs}/notes.txt\n"
        f"{run} bookmark {ramfs}/notes.txt {target} > {ramfs.with_suffix('.json')}\n"
        # A document on a filesystem then made read-only.
        f"mount -t tmpfs -o size=1m docbm-read-only {read_only}\n"
        f"echo notes > {read_only}/notes.txt\n"
        f"mount -o remount,ro {read_only}\n"
        f"{run} save {read_only}/notes.txt {contents} > {read_only.with_suffix('.json')}\n"
        # A document on a filesystem with no room for its new version.
        f"mount -t tmpfs -o size=128k docbm-full {full}\n"
        f"echo notes > {full}/notes.txt\n"
        f"{run} save {full}/notes.txt {contents} > {full.with_suffix('.json')}\n"
    )
    ran = subprocess.run(
        ["unshare", "-m", "--propagation", "private", "sh", str(namespace_script)], capture_output=True, text=True
    )
    assert ran.returncode == 0, ran.stderr
    expected = {
        ramfs: docbm.Code.UNSUPPORTED_FILESYSTEM,
        read_only: docbm.Code.READ_ONLY_FILESYSTEM,
        full: docbm.Code.NO_SPACE,
    }
    for point, code in expected.items():
        both = json.loads(point.with_suffix(".json").read_text())
        assert_same(code, (both["swift"], both["python"]))

