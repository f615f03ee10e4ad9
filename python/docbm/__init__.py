"""docbm: document-scoped bookmarks for Linux, from Python.

A bookmark is anchored on a document: it is signed with a secret key kept in the
document's ``user.docbm.key`` extended attribute, and finds its target again after
renames, moves and safe saves. Save with :meth:`Document.replace` so that the key survives;
:func:`check` finds a document whose key a plain atomic save lost, and :func:`repair` puts
it back from the user's escrow.

    with docbm.Document("notes.txt") as document:
        bookmark = document.make_bookmark("picture.png")   # store it in the document
        resolution = document.resolve(bookmark)
        if resolution.refreshed:                            # the picture moved
            bookmark = resolution.refreshed                 # store this one instead
        document.replace(new_contents)                      # keeps the key

Calls go to libdocbm through ctypes, which releases the GIL while they run. Paths may be
``str``, ``bytes`` or path-like; paths returned are ``str`` (bytes that are not UTF-8 are
kept as surrogate escapes, as :func:`os.fsdecode` does). A NUL byte in a path or a
bookmark raises ``ValueError``, as Python's own file functions do.
"""

from __future__ import annotations

import ctypes
import json
import os
import select
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, List, Literal, Optional, Sequence, Tuple, Type, TypeVar, Union

from ._library import CHECK_VISITOR, SAVE_FUNCTION, lib
from ._names import (
    Code,
    EventKind,
    LintVerdict,
    ReanchorOutcome,
    Recommendation,
    RecordState,
    RelinkOutcome,
    RepairAction,
    SaveStep,
    StaleReason,
    Verdict,
    _Name,
)

__all__ = [
    "AdoptionCandidate",
    "Check",
    "Code",
    "DocbmError",
    "Document",
    "EscrowDocument",
    "EscrowEntry",
    "EscrowTransfer",
    "EventKind",
    "LintFinding",
    "LintReport",
    "LintVerdict",
    "NewDocument",
    "ReanchorOutcome",
    "Reanchored",
    "Recommendation",
    "RecordState",
    "Relink",
    "RelinkOutcome",
    "RepairAction",
    "RepairReport",
    "Resolution",
    "SaveStep",
    "StaleReason",
    "Store",
    "StoreRecord",
    "TreeCheck",
    "Verdict",
    "WatchEvent",
    "Watcher",
    "check",
    "check_tree",
    "escrow_entries",
    "export_escrow",
    "import_escrow",
    "lint_save",
    "repair",
    "version",
]

PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]

# docbm.h's docbm_allowance values.
_ALLOW_SPLIT_HARD_LINKS = 1
_ALLOW_OWNER_CHANGE = 2
_ALLOW_READ_ONLY = 4
# docbm_escrow_use: whether a document's new keys are escrowed.
_USER_ESCROW = 0
_NO_ESCROW = 1
# docbm_watch_flags bits.
_WATCH_REPAIRS = 1
_WATCH_NOT_RECURSIVE = 2
# docbm_copy_key values.
_COPY_CARRY_KEY = 0
_COPY_STRIP_KEY = 1


def version() -> str:
    """libdocbm's version, ``MAJOR.MINOR.PATCH``."""
    version: bytes = lib.docbm_version()
    return version.decode()


_N = TypeVar("_N", bound=_Name)


def _named(kind: Type[_N], function: Callable[[int], Optional[bytes]], value: int) -> _N:
    """The member of ``kind`` that libdocbm's name function gives ``value``; a value it
    has no name for becomes ``unknown(VALUE)``."""
    name = function(value)
    return kind(name.decode() if name is not None else f"unknown({value})")


class DocbmError(Exception):
    """A failure reported by libdocbm, with the fields of Swift's ``DocbmError`` and C's
    ``docbm_error`` under the same names.

    ``code`` is a :class:`Code` (``Code.KEY_MISSING``, equal to ``"keyMissing"`` as Swift's
    ``DocbmError.Code`` and the CLI's JSON spell it); ``recommendation`` a
    :class:`Recommendation`, what to do (``Recommendation.REPAIR_KEY``, ...), ``None`` when
    the call itself was wrong; ``message`` is the sentence that says what failed; ``path``
    is the path it concerns, if any; ``last_known_path`` where the document or target was
    last known to be, when that is not ``path``; ``errno`` and ``system_call`` the system
    call that failed, if one did; ``step`` the :class:`SaveStep` of a save that failed
    (``SaveStep.COPY_ATTRIBUTES``, ...). ``str()`` gives it in one line, code first, as Swift's
    ``description`` and C's ``docbm_error_description`` do.
    """

    def __init__(
        self,
        code: Code,
        message: str,
        recommendation: Optional[Recommendation] = None,
        path: Optional[str] = None,
        errno: Optional[int] = None,
        *,
        last_known_path: Optional[str] = None,
        system_call: Optional[str] = None,
        step: Optional[SaveStep] = None,
        description: Optional[str] = None,
    ) -> None:
        super().__init__(description or f"{code}: {message}")
        self.code = code
        self.message = message
        self.recommendation = recommendation
        self.path = path
        self.last_known_path = last_known_path
        self.errno = errno
        self.system_call = system_call
        self.step = step

    @classmethod
    def _take(cls, handle: int) -> "DocbmError":
        """Copies a ``docbm_error`` out and releases it."""
        try:
            recommendation = lib.docbm_error_recommendation(handle)
            step = lib.docbm_error_step(handle)
            return cls(
                _named(Code, lib.docbm_code_name, lib.docbm_error_code(handle)),
                lib.docbm_error_message(handle).decode(errors="replace"),
                _named(Recommendation, lib.docbm_recommendation_name, recommendation) if recommendation else None,
                _path_or_none(lib.docbm_error_path(handle)),
                lib.docbm_error_errno(handle) or None,
                last_known_path=_path_or_none(lib.docbm_error_last_known_path(handle)),
                system_call=_text_or_none(lib.docbm_error_system_call(handle)),
                step=SaveStep(step.decode()) if step is not None else None,
                description=lib.docbm_error_description(handle).decode(errors="replace"),
            )
        finally:
            lib.docbm_error_free(handle)


def _call(function: Callable[..., Any], *arguments: Any) -> Any:
    """Calls a libdocbm function whose last argument is ``docbm_error **``; raises its error."""
    error = ctypes.c_void_p()
    result = function(*arguments, ctypes.byref(error))
    if error.value:
        raise DocbmError._take(error.value)
    return result


def _path(path: PathLike) -> bytes:
    """``path`` as bytes for libdocbm; a NUL byte in it raises ``ValueError``, as Python's
    own file functions do (C would read the path only up to it)."""
    encoded = os.fsencode(path)
    if b"\0" in encoded:
        raise ValueError("embedded null byte")
    return encoded


def _text(text: str) -> bytes:
    """A bookmark's text as bytes for libdocbm; a NUL byte raises ``ValueError``."""
    encoded = text.encode()
    if b"\0" in encoded:
        raise ValueError("embedded null byte")
    return encoded


def _path_or_none(path: Optional[bytes]) -> Optional[str]:
    """A path libdocbm returned, or ``None`` for NULL (bytes that are not UTF-8 kept as
    surrogate escapes, as :func:`os.fsdecode` does)."""
    return os.fsdecode(path) if path is not None else None


def _text_or_none(text: Optional[bytes]) -> Optional[str]:
    """A UTF-8 string libdocbm returned, or ``None`` for NULL."""
    return text.decode() if text is not None else None


def _given_bytes(text: Optional[bytes]) -> bytes:
    """A string libdocbm promises is not NULL (an element within a list's bounds)."""
    if text is None:
        raise RuntimeError("libdocbm returned NULL where docbm.h promises a string")
    return text


def _given(pointer: Optional[int]) -> int:
    """A pointer libdocbm promises is not NULL (an element of a result array)."""
    if not pointer:
        raise RuntimeError("libdocbm returned NULL where docbm.h promises an object")
    return pointer


def _take_string(pointer: int) -> str:
    """Copies a ``char *`` the caller owns and releases it."""
    try:
        return ctypes.string_at(pointer).decode()
    finally:
        lib.docbm_free(pointer)


@dataclass(frozen=True)
class Resolution:
    """Where a bookmark leads: ``path``; ``stale`` when it should be replaced by
    ``refreshed`` (a fresh bookmark's text, ``None`` when none is needed or, for an
    ambiguous bookmark, made); ``stale_reasons``, :class:`StaleReason` members
    (``StaleReason.TARGET_MOVED``, ...); ``is_in_trash`` when the target is in a Trash (deleted in a
    file manager, and restorable), stale or not."""

    path: str
    stale: bool
    refreshed: Optional[str]
    stale_reasons: Tuple[StaleReason, ...]
    is_folder: bool
    is_in_trash: bool

    @classmethod
    def _take(cls, handle: int) -> "Resolution":
        """Copies a ``docbm_resolution`` out and releases it."""
        try:
            mask = lib.docbm_resolution_stale_reasons(handle)
            reasons = tuple(
                _named(StaleReason, lib.docbm_stale_reason_name, 1 << bit)
                for bit in range(mask.bit_length())
                if mask & (1 << bit)
            )
            return cls(
                path=os.fsdecode(lib.docbm_resolution_path(handle)),
                stale=bool(lib.docbm_resolution_is_stale(handle)),
                refreshed=_text_or_none(lib.docbm_resolution_refreshed(handle)),
                stale_reasons=reasons,
                is_folder=bool(lib.docbm_resolution_is_folder(handle)),
                is_in_trash=bool(lib.docbm_resolution_is_in_trash(handle)),
            )
        finally:
            lib.docbm_resolution_free(handle)


@dataclass(frozen=True)
class Relink:
    """What :meth:`Document.relink` did with one bookmark: ``outcome``, a :class:`RelinkOutcome`
    (``RELINKED``, ``NOT_UNDER_SOURCE``, ``NOTHING_THERE``, ``NOT_THE_TARGET``,
    ``FAILED``); ``candidate``, where its target was looked for; ``refreshed``, the new
    bookmark's text to store in its place when relinked; ``reason``, why the file there is
    not the target or why it failed; ``code``, the failure's :class:`Code`."""

    outcome: RelinkOutcome
    candidate: Optional[str]
    refreshed: Optional[str]
    reason: Optional[str]
    code: Optional[Code]

    @classmethod
    def _take(cls, handle: int) -> "Relink":
        """Copies a ``docbm_relink_result`` out and releases it."""
        try:
            code = lib.docbm_relink_result_code(handle)
            outcome = lib.docbm_relink_result_outcome(handle)
            return cls(
                outcome=_named(RelinkOutcome, lib.docbm_relink_outcome_name, outcome),
                candidate=_path_or_none(lib.docbm_relink_result_candidate(handle)),
                refreshed=_text_or_none(lib.docbm_relink_result_refreshed(handle)),
                reason=_text_or_none(lib.docbm_relink_result_reason(handle)),
                code=_named(Code, lib.docbm_code_name, code) if code else None,
            )
        finally:
            lib.docbm_relink_result_free(handle)


@dataclass(frozen=True)
class Reanchored:
    """What :meth:`Document.reanchor` made of one bookmark: ``outcome``, a :class:`ReanchorOutcome`
    (``REANCHORED``, ``AMBIGUOUS``, ``FAILED``); ``bookmark``, its text for the copy
    when re-anchored; ``candidates``, the files an ambiguous one could lead to;
    ``code`` and ``message``, why it failed."""

    outcome: ReanchorOutcome
    bookmark: Optional[str]
    candidates: List[str]
    code: Optional[Code]
    message: Optional[str]

    @classmethod
    def _take(cls, handle: int) -> "Reanchored":
        """Copies a ``docbm_reanchored`` out and releases it."""
        try:
            outcome = lib.docbm_reanchored_outcome(handle)
            code = lib.docbm_reanchored_code(handle)
            return cls(
                outcome=_named(ReanchorOutcome, lib.docbm_reanchor_outcome_name, outcome),
                bookmark=_text_or_none(lib.docbm_reanchored_bookmark(handle)),
                candidates=[
                    os.fsdecode(lib.docbm_reanchored_candidate(handle, index))
                    for index in range(lib.docbm_reanchored_candidate_count(handle))
                ],
                code=_named(Code, lib.docbm_code_name, code) if code else None,
                message=_text_or_none(lib.docbm_reanchored_message(handle)),
            )
        finally:
            lib.docbm_reanchored_free(handle)


class _Writer:
    """A Python function as libdocbm's ``docbm_writer`` (or a save under the lint): called
    with the path to write, it returns 0, or 1 after keeping what the function raised."""

    def __init__(self, write: Callable[[str], object]) -> None:
        self.raised: List[BaseException] = []

        def call(path: bytes, context: Optional[int]) -> int:
            try:
                write(os.fsdecode(path))
                return 0
            except BaseException as error:  # kept for the caller, raised again after the call
                self.raised.append(error)
                return 1

        self.function = SAVE_FUNCTION(call)

    def save(self, function: Callable[..., Any], *arguments: Any) -> Any:
        """Calls a libdocbm save with this writer; what the writer raised is raised again
        (the document unchanged), rather than libdocbm's ``writerFailed``."""
        try:
            return _call(function, *arguments, self.function, None)
        except DocbmError:
            if self.raised:
                raise self.raised[0] from None
            raise


class _Handle:
    """A libdocbm object this package owns, released once by ``_release`` when closed.
    Calls run without the GIL, so :meth:`close` waits for those in flight on other
    threads; a call after it raises ``ValueError``."""

    _release: Callable[[int], None]
    _what = "object"

    def _hold(self, handle: Optional[int]) -> None:
        self._handle = handle
        # Calls in flight on the handle: close() waits for them.
        self._users = 0
        self._idle = threading.Condition()

    def close(self) -> None:
        """Releases it once the calls other threads are making on it have returned;
        further calls raise ``ValueError``. Closing twice is fine."""
        with self._idle:
            handle, self._handle = self._handle, None
            while self._users:
                self._idle.wait()
        if handle:
            type(self)._release(handle)

    def __del__(self) -> None:
        if hasattr(self, "_idle"):
            self.close()

    @contextmanager
    def _using(self) -> Iterator[int]:
        """The handle, held open for one call: :meth:`close` waits until it is given back."""
        with self._idle:
            if not self._handle:
                raise ValueError(f"the {self._what} is closed")
            handle = self._handle
            self._users += 1
        try:
            yield handle
        finally:
            with self._idle:
                self._users -= 1
                self._idle.notify_all()


class _AdoptionList(_Handle):
    """A ``docbm_adoption``: the list :meth:`Document.adopt` takes its candidates from."""

    _release = staticmethod(lib.docbm_adoption_free)
    _what = "adoption list"

    def __init__(self, handle: int) -> None:
        self._hold(handle)


@dataclass(frozen=True)
class AdoptionCandidate:
    """A bookmark in a document that does not verify with its key, listed by
    :meth:`Document.adoption_candidates`: ``bookmark``, its text as the document stores it;
    ``key``, the fingerprint of the key it names; ``recorded_path``, its target's path
    relative to the document's folder and ``recorded_document``, the document it was made
    in, as recorded (unverified); ``target``, the real path of what ``recorded_path`` names
    from the document's folder now (``None`` when nothing is there), the only target
    adoption gives it; ``needs_own_confirmation``, whether the target is reached through a
    symbolic link or lies outside the document's folder, so that the user must confirm it
    alone, having seen where it leads."""

    bookmark: str
    key: str
    recorded_path: str
    recorded_document: Optional[str]
    target: Optional[str]
    target_is_folder: bool
    needs_own_confirmation: bool
    _list: _AdoptionList = field(repr=False, compare=False)
    _index: int = field(repr=False, compare=False)


class Document(_Handle):
    """A document that bookmarks are anchored on (a regular file or a folder).

    Opening reads nothing; the key is made by the first :meth:`make_bookmark`. New keys
    are escrowed in the user's escrow (``$DOCBM_ESCROW_DIR``, else
    ``$XDG_STATE_HOME/docbm``, else ``~/.local/state/docbm``), as the ``docbm`` command,
    Swift and C do by default, so that :func:`repair` can put a lost key back;
    ``escrow=False`` keeps none (a scratch document, or an app that keeps its keys itself).
    A document may be used from several threads; close it (or use ``with``) when done.

    ``search`` says how far its resolutions look for a target that left its recorded
    paths: ``"filesystem"`` (the default: near its old place, then every folder the user
    can read on its filesystem, the home folder first) or ``"nearby"``; ``search_time``,
    the most seconds one call walks whole filesystems (``None`` for no limit). A target is
    ``missing`` only after every folder of its filesystem was searched; a search that
    stopped sooner raises ``notFoundNearby`` (recommendation ``searchWider``), and so does
    one that passed over folders the user cannot read (recommendation ``pickAgain``: the
    target may be in one of them).
    """

    def __init__(
        self,
        path: PathLike,
        search: Literal["nearby", "filesystem"] = "filesystem",
        search_time: Optional[float] = 10.0,
        escrow: bool = True,
    ) -> None:
        self._hold(None)
        self.path = os.fsdecode(path)
        reaches = {"nearby": 1, "filesystem": 2}
        if search not in reaches:
            raise ValueError(f"search must be 'nearby' or 'filesystem', not {search!r}")
        limit = -1.0 if search_time is None else float(search_time)
        if search_time is not None and not limit >= 0:
            raise ValueError(f"search_time must be a number of seconds at least 0, or None, not {search_time!r}")
        use = _USER_ESCROW if escrow else _NO_ESCROW
        self._handle = _call(lib.docbm_document_open_with, _path(path), reaches[search], limit, use)

    @classmethod
    def _take(cls, handle: int, path: str) -> "Document":
        """The document behind a ``docbm_document`` handle the caller owns."""
        document = cls.__new__(cls)
        document._hold(handle)
        document.path = path
        return document

    _release = staticmethod(lib.docbm_document_close)
    _what = "document"

    def __enter__(self) -> "Document":
        return self

    def __exit__(self, *exception: object) -> None:
        self.close()

    def make_bookmark(self, target: PathLike) -> str:
        """Makes a bookmark to ``target`` (a file or folder; a symbolic link is followed)
        and returns its text form (``"docbmRec..."``), giving the document a key first
        when it has none. Raises :class:`DocbmError` (``notFound``,
        ``unsupportedFileType``, ``unsupportedFilesystem``, ``documentUnproven``, ...)."""
        encoded = _path(target)
        with self._using() as handle:
            return _take_string(_call(lib.docbm_make_bookmark, handle, encoded))

    def resolve(self, bookmark: str) -> Resolution:
        """Verifies ``bookmark`` with the document's key and finds its target. Raises
        :class:`DocbmError`: ``keyMissing`` (a save lost the key: :func:`repair`),
        ``keyMismatch``, ``tampered``, ``corrupt``, ``missing``, ``volumeUnavailable``, ..."""
        encoded = _text(bookmark)
        with self._using() as handle:
            return Resolution._take(_call(lib.docbm_resolve, handle, encoded))

    def resolve_all(self, bookmarks: Sequence[str]) -> List[Union[Resolution, DocbmError]]:
        """Resolves many bookmarks at once, sharing one search for moved targets: a
        :class:`Resolution` or a :class:`DocbmError` for each, in order."""
        count = len(bookmarks)
        if count == 0:
            return []
        texts = (ctypes.c_char_p * count)(*(_text(text) for text in bookmarks))
        resolutions = (ctypes.c_void_p * count)()
        errors = (ctypes.c_void_p * count)()
        with self._using() as handle:
            _call(lib.docbm_resolve_all, handle, texts, count, resolutions, errors)
        return [
            Resolution._take(_given(resolutions[index])) if resolutions[index] else DocbmError._take(_given(errors[index]))
            for index in range(count)
        ]

    def relink(self, bookmarks: Sequence[str], old_folder: PathLike, new_folder: PathLike) -> List[Relink]:
        """Relinks bookmarks whose targets moved with a folder tree: each whose recorded path
        lies under ``old_folder`` is looked for at the same place under ``new_folder`` (the
        very file on its own filesystem; the recorded kind, size and modification time on
        another; never a symbolic link). A :class:`Relink` for each, in order; nothing is
        written: store each ``refreshed`` bookmark in place of the old one."""
        count = len(bookmarks)
        texts = (ctypes.c_char_p * max(count, 1))(*(_text(text) for text in bookmarks))
        results = (ctypes.c_void_p * max(count, 1))()
        with self._using() as handle:
            _call(lib.docbm_relink, handle, texts, count, _path(old_folder), _path(new_folder), results)
        return [Relink._take(_given(results[index])) for index in range(count)]

    def adoption_candidates(self) -> List[AdoptionCandidate]:
        """The document's bookmarks that do not verify with its key (a copy that travelled
        without it: a sync, a ``git clone``, an unzipped archive), in the order found, each
        with the file its recorded path names from the document's folder now: what an app
        shows the user before :meth:`adopt`. Nothing in them is verified. Writes nothing.
        Raises :class:`DocbmError` when the document cannot be read."""
        with self._using() as handle:
            adoption = _AdoptionList(_call(lib.docbm_adoption_list, handle))
        with adoption._using() as listed:

            def text(function: Callable[[int, int], Optional[bytes]], index: int) -> Optional[str]:
                return _path_or_none(function(listed, index))

            return [
                AdoptionCandidate(
                    bookmark=lib.docbm_adoption_bookmark(listed, index).decode(),
                    key=lib.docbm_adoption_key(listed, index).decode(),
                    recorded_path=os.fsdecode(lib.docbm_adoption_recorded_path(listed, index)),
                    recorded_document=text(lib.docbm_adoption_recorded_document, index),
                    target=text(lib.docbm_adoption_target, index),
                    target_is_folder=bool(lib.docbm_adoption_target_is_folder(listed, index)),
                    needs_own_confirmation=bool(lib.docbm_adoption_needs_own_confirmation(listed, index)),
                    _list=adoption,
                    _index=index,
                )
                for index in range(lib.docbm_adoption_count(listed))
            ]

    def adopt(self, candidates: Sequence[AdoptionCandidate]) -> List[Optional[str]]:
        """Adopts ``candidates`` (from one :meth:`adoption_candidates` of this document),
        after the user has seen where each leads and said yes: a new bookmark to each
        one's target, made with the document's key (given one first when it has none), in
        order; ``None`` for one whose target is not there. Store them with the next save;
        the old records are never trusted or reused. Raises :class:`DocbmError`
        (``notFound`` when a target is no longer the object listed: list and ask again)."""
        count = len(candidates)
        if count == 0:
            return []
        adoption = candidates[0]._list
        if any(candidate._list is not adoption for candidate in candidates):
            raise ValueError("the candidates come from different adoption_candidates() lists")
        indexes = (ctypes.c_size_t * count)(*(candidate._index for candidate in candidates))
        made = (ctypes.c_void_p * count)()
        with self._using() as handle, adoption._using() as listed:
            _call(lib.docbm_adopt, handle, listed, indexes, count, made)
        return [_take_string(_given(made[index])) if made[index] else None for index in range(count)]

    def reanchor(self, destination: PathLike, bookmarks: Sequence[str]) -> List[Reanchored]:
        """Makes bookmarks of this document work from a copy to be saved at
        ``destination`` ("Save As"): each is resolved here and, when that finds one target,
        signed anew relative to the copy's folder with the key the copy will carry. A
        :class:`Reanchored` for each, in order; one that was not re-anchored is reported,
        never dropped (store its original text, typically, for the user to pick again).
        Nothing is written: save the copy with :meth:`save_copy`, the new bookmarks in it."""
        count = len(bookmarks)
        texts = (ctypes.c_char_p * max(count, 1))(*(_text(text) for text in bookmarks))
        results = (ctypes.c_void_p * max(count, 1))()
        encoded = _path(destination)
        with self._using() as handle:
            _call(lib.docbm_reanchor, handle, encoded, texts, count, results)
        return [Reanchored._take(_given(results[index])) for index in range(count)]

    def save_copy(self, destination: PathLike, data: bytes, *, key: Literal["carry", "strip"] = "carry") -> "Document":
        """Saves ``data`` as a copy of this document at ``destination`` ("Save As") and
        returns the copy. The copy gets this document's attributes and mode (not its
        owner) and, with ``key="carry"``, its key, so the bookmarks in it resolve there
        (made for its place with :meth:`reanchor`); ``key="strip"`` gives it none (a copy
        for someone else). A file at ``destination`` is replaced as safely as
        :meth:`replace` replaces a document; this document is not written. Raises
        :class:`DocbmError` as :meth:`replace` does."""
        keys = {"carry": _COPY_CARRY_KEY, "strip": _COPY_STRIP_KEY}
        if key not in keys:
            raise ValueError(f"key must be 'carry' or 'strip', not {key!r}")
        buffer = bytes(data)
        encoded = _path(destination)
        with self._using() as handle:
            copy = _call(lib.docbm_save_copy, handle, encoded, buffer, len(buffer), keys[key])
        return Document._take(copy, os.fsdecode(destination))

    def replace(
        self,
        data: bytes,
        *,
        split_hard_links: bool = False,
        allow_owner_change: bool = False,
        allow_read_only: bool = False,
    ) -> None:
        """Saves ``data`` as the document's new contents, safely: a new file beside it gets
        the document's owner, mode, ACLs and attributes (its key among them), is flushed and
        renamed over it; a crash leaves the old or the new version whole. Raises
        :class:`DocbmError` (``hardLinked``, ``ownerChanged``, ``readOnlyDocument``,
        ``noSpace``, ``permissionDenied``, ...); the document is unchanged then.

        The first three are refused before anything is written, with the recommendation
        ``confirmSave``: ask the user, then save again allowing it. ``split_hard_links``
        saves a document with other hard links (they keep the old version);
        ``allow_owner_change`` one whose owner or group the new version cannot keep (it
        becomes the saver's); ``allow_read_only`` one whose permissions mark it read-only
        (no one, or not the caller, may write it; the new version keeps its mode)."""
        buffer = bytes(data)
        allowances = (
            (_ALLOW_SPLIT_HARD_LINKS if split_hard_links else 0)
            | (_ALLOW_OWNER_CHANGE if allow_owner_change else 0)
            | (_ALLOW_READ_ONLY if allow_read_only else 0)
        )
        with self._using() as handle:
            _call(lib.docbm_replace_document_allowing, handle, buffer, len(buffer), allowances)

    def replace_with(self, write: Callable[[str], object]) -> None:
        """:meth:`replace` for an app that writes the new version itself (a large document
        streamed out, a folder document): ``write(path)`` is called once, on this thread,
        with the path of a new file beside the document (on its filesystem, with its
        extension), which it creates and writes (for a folder document, a folder). The new
        version then gets the document's owner, mode, ACLs and key and takes its place
        whole (a folder is swapped in whole). What ``write`` raises is raised again, and
        the document is unchanged; :class:`DocbmError` ``nothingWritten`` when it wrote
        nothing, and the failures of :meth:`replace`."""
        with self._using() as handle:
            _Writer(write).save(lib.docbm_replace_document_with_writer, handle)

    def save_copy_with(
        self, destination: PathLike, write: Callable[[str], object], *, key: Literal["carry", "strip"] = "carry"
    ) -> "Document":
        """:meth:`save_copy` for an app that writes the copy itself: ``write(path)`` writes
        it at a new path beside ``destination``, as for :meth:`replace_with`."""
        keys = {"carry": _COPY_CARRY_KEY, "strip": _COPY_STRIP_KEY}
        if key not in keys:
            raise ValueError(f"key must be 'carry' or 'strip', not {key!r}")
        encoded = _path(destination)
        with self._using() as handle:
            copy = _Writer(write).save(lib.docbm_save_copy_with_writer, handle, encoded, keys[key])
        return Document._take(copy, os.fsdecode(destination))


class NewDocument(_Handle):
    """A document about to be saved for the first time: bookmarks can be made for it
    before it exists, and :meth:`create` saves it with the key that signed them.

    The key is made, in memory, when the value is made; it is never printed nor put in an
    error. Make the bookmarks with one value and create the document once: another
    ``NewDocument`` for the same path has another key. With ``escrow=True`` (the default)
    the key is escrowed during the first save, as :class:`Document` escrows the keys it
    makes."""

    def __init__(self, path: PathLike, escrow: bool = True) -> None:
        self._hold(None)
        self.path = os.fsdecode(path)
        self._handle = _call(lib.docbm_new_document_open, _path(path), _USER_ESCROW if escrow else _NO_ESCROW)

    _release = staticmethod(lib.docbm_new_document_close)
    _what = "new document"

    def __enter__(self) -> "NewDocument":
        return self

    def __exit__(self, *exception: object) -> None:
        self.close()

    def make_bookmark(self, target: PathLike) -> str:
        """Makes a bookmark to ``target``, signed with the key the document will be
        created with; it resolves once :meth:`create` has created the document. Raises
        :class:`DocbmError` (``notFound``, ``unsupportedFileType``, ...)."""
        encoded = _path(target)
        with self._using() as handle:
            return _take_string(_call(lib.docbm_new_document_make_bookmark, handle, encoded))

    def create(self, data: bytes) -> Document:
        """Creates the document with ``data`` as its contents: written beside its path,
        given the key, flushed, and renamed into place only while nothing is there.
        Returns the :class:`Document`. Raises :class:`DocbmError` (``documentExists``
        when something is at the path: it is left as it is; and the failures of
        :meth:`Document.replace`); nothing is created then."""
        buffer = bytes(data)
        with self._using() as draft:
            created = _call(lib.docbm_document_create, draft, buffer, len(buffer))
        return Document._take(created, self.path)

    def create_with(self, write: Callable[[str], object]) -> Document:
        """:meth:`create` for an app that writes the document itself: ``write(path)``
        creates it (a file, or a folder for a folder document) at a new path beside the
        document's, as for :meth:`Document.replace_with`; what it raises is raised again,
        and nothing is created."""
        with self._using() as draft:
            created = _Writer(write).save(lib.docbm_document_create_with_writer, draft)
        return Document._take(created, self.path)


@dataclass(frozen=True)
class StoreRecord:
    """One record of a :class:`Store`, as it was when read: ``key``, the string it was
    added under; ``path``, where its target was last known to be; ``state``, what the
    store last learned of the target (a :class:`RecordState`: ``UNKNOWN`` before its first
    resolution, ``AVAILABLE``, ``UNAVAILABLE``) and ``failure``, the :class:`Code` of the
    failure when unavailable (``Code.MISSING``, ``Code.VOLUME_UNAVAILABLE``, ...); ``is_gone`` when the
    target is gone for good (missing, or in a Trash), not merely away; ``created_ns`` and
    ``last_used_ns``, nanoseconds since 1970 (``None`` when never used); ``metadata``,
    what the app keeps with it (:meth:`Store.set_metadata`; ``{}`` until set), as
    :func:`json.loads` gives it."""

    key: str
    path: str
    state: RecordState
    failure: Optional[Code]
    pinned: bool
    has_bookmark: bool
    is_gone: bool
    is_in_trash: bool
    created_ns: int
    last_used_ns: Optional[int]
    metadata: Any = field(default_factory=dict)

    @classmethod
    def _read(cls, handle: int) -> "StoreRecord":
        """Copies a ``docbm_store_record`` out (the caller releases it)."""
        state = lib.docbm_store_record_state(handle)
        failure = lib.docbm_store_record_failure(handle)
        last_used = lib.docbm_store_record_last_used(handle)
        return cls(
            key=lib.docbm_store_record_key(handle).decode(),
            path=os.fsdecode(lib.docbm_store_record_path(handle)),
            state=_named(RecordState, lib.docbm_record_state_name, state),
            failure=_named(Code, lib.docbm_code_name, failure) if failure else None,
            pinned=bool(lib.docbm_store_record_is_pinned(handle)),
            has_bookmark=bool(lib.docbm_store_record_has_bookmark(handle)),
            is_gone=bool(lib.docbm_store_record_is_gone(handle)),
            is_in_trash=bool(lib.docbm_store_record_is_in_trash(handle)),
            created_ns=lib.docbm_store_record_created(handle),
            last_used_ns=last_used if last_used >= 0 else None,
            metadata=json.loads(lib.docbm_store_record_metadata(handle)),
        )

    @classmethod
    def _take(cls, handle: int) -> "StoreRecord":
        """Copies a ``docbm_store_record`` out and releases it."""
        try:
            return cls._read(handle)
        finally:
            lib.docbm_store_record_free(handle)


class Store(_Handle):
    """An app's list of remembered files and folders (recent documents, places), each a
    record under a key, whose bookmark follows its target through renames and moves.

    The store is kept in ``path`` (an SQLite file, made with its folder by the first
    change; ``docbm check`` and ``docbm repair`` work on it) and is the same store Swift's
    ``BookmarkStore`` and ``docbm store`` read. With ``recents_limit`` it is a list of
    recent documents: most recently used first, at most that many records, gone ones
    evicted first; without, records stay in the order added. Several processes may share
    it; each sees the others' changes within moments. :meth:`fileno` is readable when the
    records changed, for :mod:`selectors` or a GUI main loop; :meth:`take_changes` then
    says how many changes were seen. Raises :class:`DocbmError` (``storeCorrupt``,
    ``notAStore``, ``storeUntrusted``, ``storeNewerVersion``, ...) when the file cannot be
    used; a store not made yet is empty.

        with docbm.Store("~/.local/state/editor/recents.sqlite", recents_limit=20) as recents:
            recents.add("notes.txt")
            for record in recents:
                print(record.path, record.state)
    """

    def __init__(self, path: PathLike, *, recents_limit: Optional[int] = None) -> None:
        self._hold(None)
        if recents_limit is not None and recents_limit < 1:
            raise ValueError(f"recents_limit must be at least 1, or None, not {recents_limit!r}")
        self._handle = _call(lib.docbm_store_open, _path(os.path.expanduser(path)), recents_limit or 0)

    _release = staticmethod(lib.docbm_store_close)
    _what = "store"

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exception: object) -> None:
        self.close()

    @property
    def path(self) -> str:
        """The store file's absolute path."""
        with self._using() as handle:
            return os.fsdecode(lib.docbm_store_path(handle))

    def add(self, target: PathLike, key: Optional[str] = None) -> StoreRecord:
        """Bookmarks ``target`` and adds it under ``key`` (its path when ``None``); a key
        the store holds is given the new target. Raises :class:`DocbmError`
        (``notFound``, ...)."""
        return self._record(lib.docbm_store_add, _path(target), _key(key))

    def add_path_only(self, path: PathLike, key: Optional[str] = None) -> StoreRecord:
        """Adds ``path`` without touching it (it need not exist yet, or its disk may be
        away); its record is bookmarked when :meth:`resolve` first reaches it."""
        return self._record(lib.docbm_store_add_path_only, _path(path), _key(key))

    def resolve(self, key: str) -> StoreRecord:
        """Finds the target of the record under ``key`` (following renames and moves) and
        returns the record as now kept: its ``path`` is where the target is. Raises
        :class:`DocbmError` ``noSuchKey``, or the resolution's failure (``missing``,
        ...), which the record's ``failure`` keeps too."""
        return self._record(lib.docbm_store_resolve, _key(key))

    def pin(self, key: str, pinned: bool = True) -> StoreRecord:
        """Pins (or with ``pinned=False`` unpins) the record: recents evict it last."""
        return self._record(lib.docbm_store_set_pinned, _key(key), 1 if pinned else 0)

    def set_metadata(self, key: str, metadata: Any) -> StoreRecord:
        """Gives the record ``metadata``, any value :func:`json.dumps` writes (a dict, a
        string, ...): what the app keeps with the file (a display name, a cursor
        position). Raises :class:`DocbmError` ``NO_SUCH_KEY``; ``TypeError`` or
        ``ValueError`` for a value JSON cannot hold."""
        text = json.dumps(metadata, allow_nan=False).encode()
        return self._record(lib.docbm_store_set_metadata, _key(key), text)

    def mark_used(self, key: str) -> StoreRecord:
        """Marks the record used now (recents put it first)."""
        return self._record(lib.docbm_store_mark_used, _key(key))

    def forget(self, key: str) -> bool:
        """Forgets the record under ``key``; ``False`` when there was none."""
        encoded = _key(key)
        with self._using() as handle:
            return bool(_call(lib.docbm_store_forget, handle, encoded) == 1)

    def records(self) -> List[StoreRecord]:
        """Reads the store file and returns its records in the store's order."""
        with self._using() as handle:
            records = _call(lib.docbm_store_list, handle)
        try:
            return [
                StoreRecord._read(lib.docbm_store_records_at(records, index))
                for index in range(lib.docbm_store_records_count(records))
            ]
        finally:
            lib.docbm_store_records_free(records)

    def __iter__(self) -> Iterator[StoreRecord]:
        return iter(self.records())

    def refresh(self) -> int:
        """Resolves every record again, keeping each one's state; returns how many
        failed (their records say why)."""
        with self._using() as handle:
            return int(_call(lib.docbm_store_refresh, handle))

    def fileno(self) -> int:
        """A descriptor readable when the records changed (this process's calls or
        another's); it belongs to the store: do not read or close it."""
        with self._using() as handle:
            return int(lib.docbm_store_change_descriptor(handle))

    def take_changes(self) -> int:
        """How many changes were seen since the last call; :meth:`fileno` is not
        readable after it until the next change."""
        with self._using() as handle:
            return int(lib.docbm_store_take_changes(handle))

    def _record(self, function: Callable[..., Any], *arguments: Any) -> StoreRecord:
        with self._using() as handle:
            return StoreRecord._take(_call(function, handle, *arguments))


def _key(key: Optional[str]) -> Optional[bytes]:
    """A store key as bytes for libdocbm (``None`` stays ``None``); an empty key or a NUL
    byte in one raises ``ValueError``."""
    if key is None:
        return None
    if not key:
        raise ValueError("a store key is not empty")
    return _text(key)


@dataclass(frozen=True)
class WatchEvent:
    """What a :class:`Watcher` saw: ``kind``, an :class:`EventKind` (equal to the name
    ``docbm watch --json`` gives: ``EventKind.MOVED == "moved"``, ...); ``path``, where
    the document is now (or the folder a notice is about); ``old_path``, where it was;
    ``key``, its key's fingerprint (for ``KEY_LOST`` the key lost); ``is_own_save``,
    whether the file that replaced it is this process's own save; ``message``, one line
    for a person."""

    kind: EventKind
    path: Optional[str]
    old_path: Optional[str]
    key: Optional[str]
    is_own_save: bool
    message: str

    @classmethod
    def _take(cls, handle: int) -> "WatchEvent":
        """Copies a ``docbm_watch_event`` out and releases it."""
        try:
            kind = lib.docbm_watch_event_kind(handle)
            return cls(
                kind=_named(EventKind, lib.docbm_event_kind_name, kind),
                path=_path_or_none(lib.docbm_watch_event_path(handle)),
                old_path=_path_or_none(lib.docbm_watch_event_old_path(handle)),
                key=_text_or_none(lib.docbm_watch_event_key(handle)),
                is_own_save=bool(lib.docbm_watch_event_is_own_save(handle)),
                message=lib.docbm_watch_event_message(handle).decode(errors="replace"),
            )
        finally:
            lib.docbm_watch_event_free(handle)


class Watcher(_Handle):
    """Follows documents, not paths, while other programs rename, move, replace, delete or
    strip them: Swift's ``DocumentWatcher``, started when made. :meth:`folders` watches
    folders and every file carrying a key in them; :meth:`documents` follows a few
    documents. Events wait in order until read: :meth:`read` takes those waiting,
    :meth:`wait` blocks until some come, and :meth:`fileno` is readable while some wait,
    for :mod:`selectors` or a GUI main loop. With ``repairs=True`` a key a save dropped
    is put back from the user's escrow, under repair's rules. Close it (or use ``with``)
    to stop its thread."""

    def __init__(self, function: Callable[..., Any], paths: Sequence[PathLike], repairs: bool, recursive: bool) -> None:
        self._hold(None)
        encoded = [_path(path) for path in paths]
        if not encoded:
            raise ValueError("a watcher needs at least one path")
        flags = (_WATCH_REPAIRS if repairs else 0) | (0 if recursive else _WATCH_NOT_RECURSIVE)
        self._handle = _call(function, (ctypes.c_char_p * len(encoded))(*encoded), len(encoded), flags)

    @classmethod
    def folders(cls, folders: Sequence[PathLike], *, repairs: bool = False, recursive: bool = True) -> "Watcher":
        """Watches ``folders`` (and the folders under them unless ``recursive=False``).
        Raises :class:`DocbmError` (``notFound``, ``permissionDenied``, ...)."""
        return cls(lib.docbm_watcher_watch_folders, folders, repairs, recursive)

    @classmethod
    def documents(cls, documents: Sequence[PathLike], *, repairs: bool = False) -> "Watcher":
        """Follows ``documents`` (files or folders) wherever they go in their folders."""
        return cls(lib.docbm_watcher_follow_documents, documents, repairs, False)

    _release = staticmethod(lib.docbm_watcher_close)
    _what = "watcher"

    def __enter__(self) -> "Watcher":
        return self

    def __exit__(self, *exception: object) -> None:
        self.close()

    def read(self) -> List[WatchEvent]:
        """The events waiting, oldest first (none: an empty list); returns at once."""
        events: List[WatchEvent] = []
        with self._using() as handle:
            while True:
                event = lib.docbm_watcher_next_event(handle)
                if not event:
                    return events
                events.append(WatchEvent._take(event))

    def wait(self, timeout: Optional[float] = None) -> List[WatchEvent]:
        """The events waiting, after waiting up to ``timeout`` seconds (``None``: for
        ever) for one to come; an empty list when none came in time."""
        select.select([self.fileno()], [], [], timeout)
        return self.read()

    def fileno(self) -> int:
        """A descriptor readable while events wait; it belongs to the watcher."""
        with self._using() as handle:
            return int(lib.docbm_watcher_descriptor(handle))

    @property
    def has_nothing_left(self) -> bool:
        """Whether every folder given is gone: the watcher has stopped by itself."""
        with self._using() as handle:
            return bool(lib.docbm_watcher_has_nothing_left(handle))


@dataclass(frozen=True)
class Check:
    """What a check found in one document: ``verdict``, a :class:`Verdict` (equal to the name
    the CLI gives: ``Verdict.KEY_LOST == "keyLost"``, ...), whether it ``is_problem``, a
    ``message``, how many bookmarks its bytes hold, and its ``path``."""

    verdict: Verdict
    is_problem: bool
    message: str
    bookmark_count: int
    path: str = ""

    @classmethod
    def _read(cls, handle: int) -> "Check":
        """Copies a ``docbm_check_result`` out (the caller releases it)."""
        number = lib.docbm_check_result_verdict(handle)
        return cls(
            verdict=_named(Verdict, lib.docbm_verdict_name, number),
            is_problem=bool(lib.docbm_check_result_is_problem(handle)),
            message=lib.docbm_check_result_message(handle).decode(errors="replace"),
            bookmark_count=lib.docbm_check_result_bookmark_count(handle),
            path=os.fsdecode(lib.docbm_check_result_path(handle)),
        )


def check(path: PathLike) -> Check:
    """Checks the document at ``path`` as ``docbm check`` does, with the user's escrow as
    evidence. A document that cannot be read gets the verdict ``Verdict.UNREADABLE``."""
    handle = _call(lib.docbm_check, _path(path))
    try:
        return Check._read(handle)
    finally:
        lib.docbm_check_result_free(handle)


@dataclass(frozen=True)
class TreeCheck:
    """What :func:`check_tree` found: the ``checks`` of every document, in walk order, and
    how many folders could not be listed (``unreadable_folders``; ``docbm check -r`` names
    them)."""

    checks: List[Check]
    unreadable_folders: int

    @property
    def problems(self) -> List[Check]:
        """The checks whose verdict is a problem (``docbm check -r`` exits 2 for them)."""
        return [check for check in self.checks if check.is_problem]


def check_tree(root: PathLike) -> TreeCheck:
    """Checks every document in the tree at ``root`` (a folder, or one file) as ``docbm
    check -r`` does, on every core, with the user's escrow as evidence."""
    checks: List[Check] = []

    def visit(handle: int, context: Optional[int]) -> None:
        checks.append(Check._read(handle))

    visitor = CHECK_VISITOR(visit)
    unreadable = ctypes.c_size_t()
    _call(lib.docbm_check_tree, _path(root), visitor, None, ctypes.byref(unreadable))
    return TreeCheck(checks=checks, unreadable_folders=unreadable.value)


@dataclass(frozen=True)
class RepairReport:
    """What a repair did: ``action``, a :class:`RepairAction` (``RESTORED``,
    ``NOTHING_TO_DO``, ``REFUSED``),
    the ``refusal`` when refused (``"notRecorded"``, ...), a ``message``, and the
    ``verdict`` (a :class:`Verdict`) after it; for a document whose key was lost, the ``remedy`` that fits
    (``"repair"``, ``"importEscrow"``, ``"adopt"``, ``"repairAllowingUnrecorded"``,
    ``"copyBack"``, ``"forgetThenAdopt"``), the ``recorded_document`` it is about, and
    the ``advice`` in a sentence."""

    action: RepairAction
    refusal: Optional[str]
    message: str
    verdict: Verdict
    remedy: Optional[str] = None
    recorded_document: Optional[str] = None
    advice: Optional[str] = None


def repair(path: PathLike, *, allow_unrecorded: bool = False) -> RepairReport:
    """Repairs the document at ``path`` as ``docbm repair`` does: puts a lost key back from
    the user's escrow when the escrow shows this file is the key's document.

    ``allow_unrecorded=True`` (``docbm repair --allow-unrecorded``, the remedy
    ``repairAllowingUnrecorded``) also puts the key on a file of the user's the escrow never
    recorded for it, when the file's own bookmarks name the key and verify with it: a copy
    made without its key, or the app's own file that another program wrote anew. Everyone
    who can read the file then has the key, so narrow its mode first when others may read
    it."""
    call = lib.docbm_repair_allowing_unrecorded if allow_unrecorded else lib.docbm_repair
    handle = _call(call, _path(path))
    try:
        action = lib.docbm_repair_report_action(handle)
        verdict = lib.docbm_repair_report_verdict(handle)
        advice = lib.docbm_repair_report_advice(handle)
        return RepairReport(
            action=_named(RepairAction, lib.docbm_repair_action_name, action),
            refusal=_text_or_none(lib.docbm_repair_report_refusal(handle)),
            message=lib.docbm_repair_report_message(handle).decode(errors="replace"),
            verdict=_named(Verdict, lib.docbm_verdict_name, verdict),
            remedy=_text_or_none(lib.docbm_repair_report_remedy(handle)),
            recorded_document=_path_or_none(lib.docbm_repair_report_recorded_document(handle)),
            advice=advice.decode(errors="replace") if advice is not None else None,
        )
    finally:
        lib.docbm_repair_report_free(handle)


@dataclass(frozen=True)
class EscrowDocument:
    """A document an escrowed key was made for: its ``path`` when docbm last confirmed it,
    how it became the key's (``origin``: ``"bookmarked"``, ``"saved"``, ``"repaired"``,
    ``"successor"``, ``"moved"``, ``"imported"``, ``"transferred"``; more may come) and
    when it was last confirmed (``confirmed_ns``, nanoseconds since 1970)."""

    path: str
    origin: str
    confirmed_ns: int


@dataclass(frozen=True)
class EscrowEntry:
    """One key of the user's escrow: its fingerprint (``key``, as ``docbm escrow list``
    shows it; the key itself stays in the library), when it was first escrowed
    (``created_ns``) and its ``documents``, the most recently confirmed last."""

    key: str
    created_ns: int
    documents: Tuple[EscrowDocument, ...]


@dataclass(frozen=True)
class EscrowTransfer:
    """What :func:`export_escrow` wrote or :func:`import_escrow` added: ``keys`` and
    ``documents`` (records); for an import, ``keys_already_held``, the file's keys this
    escrow had already."""

    keys: int
    documents: int
    keys_already_held: int = 0


def escrow_entries() -> List[EscrowEntry]:
    """The keys of the user's escrow (``$DOCBM_ESCROW_DIR``, else
    ``$XDG_STATE_HOME/docbm``, else ``~/.local/state/docbm``), by fingerprint; empty when
    no key was escrowed yet. Raises :class:`DocbmError` ``ESCROW_UNTRUSTED`` or
    ``ESCROW_DAMAGED`` when the escrow cannot be trusted or read."""
    handle = _call(lib.docbm_escrow_list)
    try:
        entries = []
        for index in range(lib.docbm_escrow_entries_count(handle)):
            documents = tuple(
                EscrowDocument(
                    path=os.fsdecode(_given_bytes(lib.docbm_escrow_entry_document_path(handle, index, at))),
                    origin=_given_bytes(lib.docbm_escrow_entry_document_origin(handle, index, at)).decode(),
                    confirmed_ns=lib.docbm_escrow_entry_document_confirmed(handle, index, at),
                )
                for at in range(lib.docbm_escrow_entry_document_count(handle, index))
            )
            entries.append(
                EscrowEntry(
                    key=_given_bytes(lib.docbm_escrow_entry_key(handle, index)).decode(),
                    created_ns=lib.docbm_escrow_entry_created(handle, index),
                    documents=documents,
                )
            )
        return entries
    finally:
        lib.docbm_escrow_entries_free(handle)


def export_escrow(file: PathLike, *, replace: bool = False) -> EscrowTransfer:
    """Writes the user's escrow to ``file`` for another machine of the user's, as ``docbm
    escrow export`` does: a new file of mode 0600, given its name only once written and
    flushed. It holds the keys themselves: move it only over an encrypted channel, and
    delete it once imported. Raises :class:`DocbmError`: ``NOT_FOUND`` (no key escrowed
    yet), ``DOCUMENT_EXISTS`` (``file`` exists and ``replace`` is false),
    ``UNSUPPORTED_FILE_TYPE`` (not a regular file), ``ESCROW_UNTRUSTED``, ``NO_SPACE``, ..."""
    keys, documents = ctypes.c_size_t(), ctypes.c_size_t()
    _call(lib.docbm_escrow_export, _path(file), int(replace), ctypes.byref(keys), ctypes.byref(documents))
    return EscrowTransfer(keys=keys.value, documents=documents.value)


def import_escrow(file: PathLike) -> EscrowTransfer:
    """Adds the keys of an export (:func:`export_escrow`, here or on another machine) to the
    user's escrow, as ``docbm escrow import`` does; then :func:`repair` puts them back on
    copies that arrived without them. The file must be the user's, readable by nobody else,
    and an undamaged export. Raises :class:`DocbmError`: ``NOT_FOUND``,
    ``ESCROW_UNTRUSTED`` (a symbolic link, another user's, or open to others),
    ``UNSUPPORTED_FILE_TYPE``, ``ESCROW_DAMAGED`` (then nothing is imported)."""
    keys, documents, held = ctypes.c_size_t(), ctypes.c_size_t(), ctypes.c_size_t()
    _call(lib.docbm_escrow_import, _path(file), ctypes.byref(keys), ctypes.byref(documents), ctypes.byref(held))
    return EscrowTransfer(keys=keys.value, documents=documents.value, keys_already_held=held.value)


@dataclass(frozen=True)
class LintFinding:
    """One thing a save broke: its ``kind`` (``"keyLost"``, ``"modeChanged"``, ...), what
    was seen (``message``) and how to ``fix`` it."""

    kind: str
    message: str
    fix: str


@dataclass(frozen=True)
class LintReport:
    """What :func:`lint_save` found: ``verdict``, a :class:`LintVerdict` (``KEPT``,
    ``KEPT_LEAVING_FILES``, ``LOST``, ``NOT_SAVED``), ``is_safe`` when the save kept everything and left
    nothing behind, the ``findings``, a ``summary`` for a test's failure message, and the
    exception the save raised, if it did (``save_error``)."""

    verdict: LintVerdict
    is_safe: bool
    findings: Tuple[LintFinding, ...]
    summary: str
    save_error: Optional[BaseException] = None


# The lint's fixes name libdocbm's save calls; a Python app makes them through Document.
_PYTHON_CALLS = (
    (
        "docbm_replace_document_allowing() with DOCBM_ALLOW_SPLIT_HARD_LINKS",
        "Document.replace(data, split_hard_links=True)",
    ),
    ("docbm_replace_document() or docbm_replace_document_with_writer()", "Document.replace(data) or Document.replace_with(write)"),
)


def _naming_python_calls(text: str) -> str:
    for c_call, python_call in _PYTHON_CALLS:
        text = text.replace(c_call, python_call)
    return text


def lint_save(save: Callable[[str], object], folder: Optional[PathLike] = None) -> LintReport:
    """Runs an app's ``save`` once on a new scratch document (a key, other attributes, mode
    0640 and a bookmark stored in it) made in ``folder`` (default: the working folder; not
    /tmp, where editors save differently), and reports what it broke. ``save`` is called
    with the document's path and saves a new version there as the app does; an exception
    from it is a finding (``saveFailed``), kept in ``save_error``.

        report = docbm.lint_save(lambda path: my_app.save(document, path))
        assert report.is_safe, report.summary
    """
    writer = _Writer(save)  # what the save raises is a finding, kept for the caller
    raised = writer.raised
    handle = _call(lib.docbm_lint_save, writer.function, None, _path(folder) if folder is not None else None)
    # An interrupt during the save stops the caller too, once the scratch document is gone.
    if raised and isinstance(raised[0], (KeyboardInterrupt, SystemExit)):
        lib.docbm_lint_report_free(handle)
        raise raised[0]
    try:
        count = lib.docbm_lint_report_finding_count(handle)
        verdict = lib.docbm_lint_report_verdict(handle)
        return LintReport(
            verdict=_named(LintVerdict, lib.docbm_lint_verdict_name, verdict),
            is_safe=bool(lib.docbm_lint_report_is_safe(handle)),
            findings=tuple(
                LintFinding(
                    kind=lib.docbm_lint_report_finding_kind(handle, index).decode(),
                    message=lib.docbm_lint_report_finding_message(handle, index).decode(errors="replace"),
                    fix=_naming_python_calls(
                        lib.docbm_lint_report_finding_fix(handle, index).decode(errors="replace")
                    ),
                )
                for index in range(count)
            ),
            summary=_naming_python_calls(lib.docbm_lint_report_summary(handle).decode(errors="replace")),
            save_error=raised[0] if raised else None,
        )
    finally:
        lib.docbm_lint_report_free(handle)
