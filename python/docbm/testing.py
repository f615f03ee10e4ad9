"""Faults for an app's own tests: the "disk full", "file missing", "disk offline", "key
lost" and "still resolving" states, reached without filling or unplugging disks.

Each fault is a context manager. It holds for the whole process, on every thread, while
its ``with`` block runs, and only for the files inside its folder, so that tests that each
work in a scratch folder of their own can run at the same time. A second fault of the same
kind for a folder that holds the first one's, or is inside it, raises
:class:`docbm.DocbmError` (``Code.INVALID_ARGUMENT``). The failures are the real ones:
the code, path, last known path, recommendation, errno and step a real failure gives.

    from docbm.testing import resolution_fault, save_fault

    def test_a_full_disk_keeps_the_document(tmp_path):
        with save_fault(SaveStep.WRITE, errno.ENOSPC, folder=tmp_path):
            with pytest.raises(docbm.DocbmError) as failure:
                editor.save()
        assert failure.value.code == docbm.Code.NO_SPACE

    def test_a_missing_picture_is_marked(tmp_path):
        with resolution_fault(docbm.Code.MISSING, folder=tmp_path):
            board.reload()
        assert board.tiles[0].is_gone
"""

from __future__ import annotations

import errno as _errno
from contextlib import contextmanager
from typing import Callable, Dict, Iterator, Optional, TypeVar

from . import Code, PathLike, SaveStep, _call, _path
from ._library import lib
from ._names import _Name

__all__ = [
    "ResolutionGate",
    "crash_before_rename",
    "resolution_fault",
    "resolution_gate",
    "save_fault",
    "store_read_fault",
]

_N = TypeVar("_N", bound=_Name)


def _numbers(kind: Callable[[str], _N], function: Callable[[int], Optional[bytes]], count: int) -> Dict[_N, int]:
    """The C values of the names libdocbm's name function gives values 1 to ``count``."""
    numbers = {}
    for number in range(1, count + 1):
        name = function(number)
        if name is not None:
            numbers[kind(name.decode())] = number
    return numbers


_STEPS = _numbers(SaveStep, lib.docbm_save_step_name, 64)
_CODES = _numbers(Code, lib.docbm_code_name, 64)


def _folder(folder: Optional[PathLike]) -> Optional[bytes]:
    return _path(folder) if folder is not None else None


@contextmanager
def _installed(fault: int) -> Iterator[None]:
    try:
        yield
    finally:
        lib.docbm_test_fault_end(fault)


@contextmanager
def save_fault(step: SaveStep, errno: int, *, folder: Optional[PathLike] = None) -> Iterator[None]:
    """The next save by docbm (:meth:`docbm.Document.replace`, ``save_copy``, ...) of a
    document inside ``folder`` (``None``: of any document) fails at ``step`` as if its
    system call had returned ``errno``: ``ENOSPC`` raises ``Code.NO_SPACE``, ``EIO``
    ``Code.IO_ERROR``, with the error's ``step`` naming the step. The document stays as it
    was; later saves succeed."""
    number = _STEPS.get(SaveStep(step))
    if number is None:
        raise ValueError(f"{step!r} is a step this libdocbm does not know")
    with _installed(_call(lib.docbm_test_fail_save, _folder(folder), number, errno)):
        yield


@contextmanager
def crash_before_rename(*, folder: Optional[PathLike] = None) -> Iterator[None]:
    """The next save by docbm of a document inside ``folder`` (``None``: of any document)
    stops just before its rename, as a crash there would: it raises ``Code.IO_ERROR`` at
    ``SaveStep.SWAP``, the document is the old version, and the new one is left beside it
    under a hidden name while the block runs; it is removed when the block ends."""
    with _installed(_call(lib.docbm_test_crash_save, _folder(folder))):
        yield


@contextmanager
def resolution_fault(code: Code, *, folder: PathLike, targets: Optional[PathLike] = None) -> Iterator[None]:
    """Every resolve against a document inside ``folder`` fails with ``code``:
    ``Code.MISSING`` (recommendation ``FORGET``), ``Code.VOLUME_UNAVAILABLE``
    (``RETRY_LATER``), ``Code.KEY_MISSING`` (``REPAIR_KEY``) or ``Code.IO_ERROR``
    (``RETRY_LATER``, errno ``EIO``). With ``targets``, only bookmarks whose recorded
    target is inside that folder fail; the others resolve as usual."""
    number = _CODES.get(Code(code))
    if number is None:
        raise ValueError(f"{code!r} is a code this libdocbm does not know")
    with _installed(_call(lib.docbm_test_fail_resolves, _path(folder), number, _folder(targets))):
        yield


class ResolutionGate:
    """The gate :func:`resolution_gate`'s resolves wait at."""

    def __init__(self, fault: int) -> None:
        self._fault: Optional[int] = fault

    def _given(self) -> int:
        if self._fault is None:
            raise ValueError("the gate's block has ended")
        return self._fault

    @property
    def held_count(self) -> int:
        """How many resolves have reached the gate so far (waiting or let go)."""
        count: int = lib.docbm_test_fault_held_count(self._given())
        return count

    def wait_until_held(self, count: int = 1) -> None:
        """Blocks until ``count`` resolves have reached the gate. Never call it on a thread
        a held resolve needs."""
        lib.docbm_test_fault_wait_until_held(self._given(), count)

    def open(self) -> None:
        """Lets every waiting resolve go on, and every later one pass without waiting."""
        lib.docbm_test_fault_open(self._given())


@contextmanager
def resolution_gate(*, folder: PathLike, targets: Optional[PathLike] = None) -> Iterator[ResolutionGate]:
    """Every resolve against a document inside ``folder`` (of a bookmark whose target is
    inside ``targets``, when given) waits, holding its thread, until the gate is opened or
    the block ends; then it resolves for real. For testing what an app shows while
    resolving is slow:

        with resolution_gate(folder=tmp_path) as gate:
            loading = threading.Thread(target=board.reload)
            loading.start()
            gate.wait_until_held()
            assert board.shows_progress
            gate.open()
            loading.join()
    """
    gate = ResolutionGate(_call(lib.docbm_test_hold_resolves, _path(folder), _folder(targets)))
    try:
        yield gate
    finally:
        fault, gate._fault = gate._fault, None
        lib.docbm_test_fault_end(fault)


@contextmanager
def store_read_fault(*, folder: PathLike, errno: int = _errno.EIO) -> Iterator[None]:
    """Every read of a store file inside ``folder`` (opening a :class:`docbm.Store`, and
    the reads its calls start with) fails as if ``read`` had returned ``errno``: ``EIO``
    raises ``Code.IO_ERROR``, ``EACCES`` ``Code.PERMISSION_DENIED``."""
    with _installed(_call(lib.docbm_test_fail_store_reads, _path(folder), errno)):
        yield
