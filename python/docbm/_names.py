"""The names libdocbm gives its codes, verdicts and outcomes, as enumerations.

Each member is a ``str`` equal to its name as Swift, C (``docbm_*_name``) and the CLI's
JSON spell it (``Code.KEY_MISSING == "keyMissing"``), so that it compares, prints and
serialises as that name, and a type checker catches a misspelt one. The enumerations may
grow: a name a newer libdocbm gives that this package does not list still becomes a member
(one not in the class's iteration), so ``==`` against it keeps working.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Optional


class _Name(str, Enum):
    """A libdocbm name: ``str()`` and ``format()`` give the name itself."""

    def __str__(self) -> str:
        return str.__str__(self)

    def __format__(self, spec: str) -> str:
        return str.__format__(self, spec)

    @classmethod
    def _missing_(cls, value: object) -> Optional[Any]:
        if not isinstance(value, str):
            return None
        member = str.__new__(cls, value)
        member._name_ = value
        member._value_ = value
        return member


class Code(_Name):
    """What failed: a :class:`DocbmError`'s ``code``, spelled as in Swift's ``DocbmError.Code``, C's
    ``docbm_code_name`` and the CLI's JSON. ``INVALID_ARGUMENT`` is libdocbm's own (a call
    given nothing, or a value it does not list); the ``STORE_*``, ``NO_SUCH_KEY`` and
    ``NOT_A_STORE`` codes are a :class:`Store`'s."""

    KEY_MISSING = "keyMissing"
    KEY_MISMATCH = "keyMismatch"
    KEY_MALFORMED = "keyMalformed"
    TAMPERED = "tampered"
    CORRUPT = "corrupt"
    UNSUPPORTED_VERSION = "unsupportedVersion"
    MISSING = "missing"
    VOLUME_UNAVAILABLE = "volumeUnavailable"
    NOT_FOUND = "notFound"
    PATH_TOO_LONG = "pathTooLong"
    UNSUPPORTED_FILE_TYPE = "unsupportedFileType"
    UNSUPPORTED_FILESYSTEM = "unsupportedFilesystem"
    READ_ONLY_FILESYSTEM = "readOnlyFilesystem"
    IMMUTABLE = "immutable"
    PERMISSION_DENIED = "permissionDenied"
    NO_SPACE = "noSpace"
    IO_ERROR = "ioError"
    SYSTEM_FAILURE = "systemFailure"
    WRITER_FAILED = "writerFailed"
    NOTHING_WRITTEN = "nothingWritten"
    HARD_LINKED = "hardLinked"
    ATTRIBUTE_COPY_FAILED = "attributeCopyFailed"
    ESCROW_UNTRUSTED = "escrowUntrusted"
    ESCROW_DAMAGED = "escrowDamaged"
    DOCUMENT_UNPROVEN = "documentUnproven"
    OWNER_CHANGED = "ownerChanged"
    DOCUMENT_EXISTS = "documentExists"
    PORTAL_REFUSES_ATTRIBUTES = "portalRefusesAttributes"
    PORTAL_HOST_PATH_UNKNOWN = "portalHostPathUnknown"
    OUTSIDE_SANDBOX = "outsideSandbox"
    NOT_FOUND_NEARBY = "notFoundNearby"
    READ_ONLY_DOCUMENT = "readOnlyDocument"
    INVALID_ARGUMENT = "invalidArgument"
    NO_SUCH_KEY = "noSuchKey"
    STORE_NEWER_VERSION = "storeNewerVersion"
    NOT_A_STORE = "notAStore"
    STORE_UNTRUSTED = "storeUntrusted"
    STORE_CORRUPT = "storeCorrupt"
    STORE_KEY_LOST = "storeKeyLost"


class Recommendation(_Name):
    """What to do about a failure: a :class:`DocbmError`'s ``recommendation``."""

    RETRY_LATER = "retryLater"
    PICK_AGAIN = "pickAgain"
    FORGET = "forget"
    REPAIR_KEY = "repairKey"
    USE_ANOTHER_LOCATION = "useAnotherLocation"
    SAVE_ELSEWHERE = "saveElsewhere"
    CONFIRM_SAVE = "confirmSave"
    CLEAR_FLAGS = "clearFlags"
    FREE_SPACE = "freeSpace"
    SEARCH_WIDER = "searchWider"


class StaleReason(_Name):
    """Why a :class:`Resolution` is stale (its bookmark should be stored again)."""

    TARGET_MOVED = "targetMoved"
    DOCUMENT_MOVED = "documentMoved"
    RELATIVE_PATH_CHANGED = "relativePathChanged"
    IDENTITY_CHANGED = "identityChanged"
    AMBIGUOUS = "ambiguous"
    IN_TRASH = "inTrash"
    RELINKED = "relinked"


class Verdict(_Name):
    """What :func:`check` found in a document, as ``docbm check`` says it."""

    OK = "ok"
    QUOTES_BOOKMARKS = "quotesBookmarks"
    NO_BOOKMARKS = "noBookmarks"
    KEY_LOST = "keyLost"
    KEY_MISMATCH = "keyMismatch"
    MIXED = "mixed"
    UNSUPPORTED_FILESYSTEM = "unsupportedFilesystem"
    UNREADABLE = "unreadable"
    INCOMPLETE = "incomplete"


class RepairAction(_Name):
    """What :func:`repair` did."""

    RESTORED = "restored"
    NOTHING_TO_DO = "nothingToDo"
    REFUSED = "refused"


class LintVerdict(_Name):
    """What :func:`lint_save` found a save did to the document."""

    KEPT = "kept"
    KEPT_LEAVING_FILES = "keptLeavingFiles"
    LOST = "lost"
    NOT_SAVED = "notSaved"


class RecordState(_Name):
    """Whether a :class:`StoreRecord`'s target was found when last resolved."""

    UNKNOWN = "unknown"
    AVAILABLE = "available"
    UNAVAILABLE = "unavailable"


class EventKind(_Name):
    """What happened to a watched document: a :class:`WatchEvent`'s ``kind``, named as
    ``docbm watch --json`` names it."""

    APPEARED = "appeared"
    MOVED = "moved"
    REPLACED = "replaced"
    MODIFIED = "modified"
    DELETED = "deleted"
    MOVED_OUT = "movedOut"
    KEY_LOST = "keyLost"
    KEY_RESTORED = "keyRestored"
    REPAIR_REFUSED = "repairRefused"
    RESCANNED = "rescanned"
    NOT_WATCHED = "notWatched"
    FOLDER_GONE = "folderGone"


class RelinkOutcome(_Name):
    """What :meth:`Document.relink` did with one bookmark."""

    RELINKED = "relinked"
    NOT_UNDER_SOURCE = "notUnderSource"
    NOTHING_THERE = "nothingThere"
    NOT_THE_TARGET = "notTheTarget"
    FAILED = "failed"


class ReanchorOutcome(_Name):
    """What :meth:`Document.reanchor` did with one bookmark."""

    REANCHORED = "reanchored"
    AMBIGUOUS = "ambiguous"
    FAILED = "failed"


class SaveStep(_Name):
    """The steps of a save, in order: a :class:`DocbmError`'s ``step``, and where a
    :func:`docbm.testing.save_fault` makes a save fail."""

    INSPECT_DOCUMENT = "inspectDocument"
    PREPARE_TEMPORARY = "prepareTemporary"
    WRITE = "write"
    OPEN_WRITTEN = "openWritten"
    CHANGE_OWNER = "changeOwner"
    COPY_ATTRIBUTES = "copyAttributes"
    CHANGE_MODE = "changeMode"
    COPY_ACL = "copyACL"
    SYNC_FILE = "syncFile"
    SWAP = "swap"
    SYNC_FOLDER = "syncFolder"
