"""The Python package over libdocbm: the flows of the Swift tests (make, resolve after a
rename, a save that keeps the key, keyMissing after a plain atomic save, a check that finds
the lost key and a repair that restores it), errors, and the names shared with Swift."""

from __future__ import annotations

import enum
import errno
import json
import os
import re
import stat
import subprocess
import threading
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Type

import pytest

import docbm
import error_pair

KEY = "user.docbm.key"


def plain_atomic_save(document: Path, data: bytes) -> None:
    """A save as many programs write it: a new file with the document's mode, renamed over
    the document. It carries no extended attributes, so the key is lost. (Right after
    docbm's own save, often within the same tick of the clock files are stamped with.)"""
    temporary = document.with_name(document.name + ".tmp")
    temporary.write_bytes(data)
    os.chmod(temporary, stat.S_IMODE(document.stat().st_mode))
    os.replace(temporary, document)


def test_version_is_the_release() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+", docbm.version())


def test_make_and_resolve_where_it_was(notes: Path, picture: Path) -> None:
    with docbm.Document(notes) as document:
        bookmark = document.make_bookmark(picture)
        assert bookmark.startswith("docbmRec")
        assert len(os.getxattr(notes, KEY)) > 0
        resolution = document.resolve(bookmark)
    assert resolution.path == str(picture)
    assert not resolution.stale
    assert resolution.refreshed is None
    assert resolution.stale_reasons == ()
    assert not resolution.is_folder


def test_resolve_after_a_rename_gives_a_refreshed_bookmark(notes: Path, picture: Path, folder: Path) -> None:
    with docbm.Document(notes) as document:
        bookmark = document.make_bookmark(picture)
        renamed = folder / "holiday.png"
        picture.rename(renamed)
        resolution = document.resolve(bookmark)
        assert resolution.path == str(renamed)
        assert resolution.stale
        assert "targetMoved" in resolution.stale_reasons
        assert resolution.refreshed is not None
        again = document.resolve(resolution.refreshed)
        assert again.path == str(renamed) and not again.stale


def test_a_folder_target(notes: Path, folder: Path) -> None:
    images = folder / "images"
    images.mkdir()
    with docbm.Document(notes) as document:
        assert document.resolve(document.make_bookmark(images)).is_folder


def test_a_name_that_is_not_utf8_is_kept(notes: Path, folder: Path) -> None:
    target = os.path.join(os.fsencode(folder), b"caf\xe9.png")
    with open(target, "wb") as file:
        file.write(b"png\n")
    with docbm.Document(notes) as document:
        resolution = document.resolve(document.make_bookmark(target))
    assert os.fsencode(resolution.path) == target


def test_replace_keeps_the_key_and_mode(notes: Path, picture: Path) -> None:
    with docbm.Document(notes) as document:
        bookmark = document.make_bookmark(picture)
        os.chmod(notes, 0o640)
        key = os.getxattr(notes, KEY)
        inode = notes.stat().st_ino
        document.replace(f"notes\n{bookmark}\n".encode())
        assert notes.read_bytes() == f"notes\n{bookmark}\n".encode()
        assert os.getxattr(notes, KEY) == key
        assert stat.S_IMODE(notes.stat().st_mode) == 0o640
        assert notes.stat().st_ino != inode, "a new version is renamed into place"
        assert document.resolve(bookmark).path == str(picture)


def test_a_plain_atomic_save_loses_the_key_and_repair_puts_it_back(notes: Path, picture: Path) -> None:
    with docbm.Document(notes) as document:
        bookmark = document.make_bookmark(picture)
        document.replace(f"notes\n{bookmark}\n".encode())
        assert docbm.check(notes).verdict == "ok"

        plain_atomic_save(notes, f"edited elsewhere\n{bookmark}\n".encode())
        with pytest.raises(docbm.DocbmError) as raised:
            document.resolve(bookmark)
        assert raised.value.code == "keyMissing"
        assert raised.value.recommendation == "repairKey"
        assert raised.value.path == str(notes)
        assert "keyMissing" in str(raised.value)

        found = docbm.check(notes)
        assert found.verdict == "keyLost"
        assert found.is_problem
        assert found.bookmark_count == 1

        report = docbm.repair(notes)
        assert report.action == "restored", report.message
        assert report.refusal is None
        assert report.verdict == "ok"
        assert document.resolve(bookmark).path == str(picture)
        assert docbm.repair(notes).action == "nothingToDo"


def test_only_a_document_opened_without_the_escrow_cannot_be_repaired(notes: Path, picture: Path, folder: Path) -> None:
    """New keys go to the user's escrow unless the app opts out, as in Swift and C."""
    scratch = folder / "scratch.txt"
    scratch.write_bytes(b"scratch\n")
    for path, escrow, action in ((notes, True, "restored"), (scratch, False, "refused")):
        with docbm.Document(path, escrow=escrow) as document:
            bookmark = document.make_bookmark(picture)
        plain_atomic_save(path, f"edited elsewhere\n{bookmark}\n".encode())
        report = docbm.repair(path)
        assert report.action == action, report.message
    assert docbm.repair(scratch).refusal == "notEscrowed"


def test_a_new_document_is_created_with_the_key_its_bookmarks_were_made_with(picture: Path, folder: Path) -> None:
    """Bookmarks made before the document exists resolve once it is created; the key was
    escrowed by the first save; a second creation is refused and leaves the file."""
    board = folder / "new-board.txt"
    with docbm.NewDocument(board) as draft:
        bookmark = draft.make_bookmark(picture)
        assert not board.exists()
        contents = f"board\n{bookmark}\n".encode()
        with draft.create(contents) as document:
            assert document.path == str(board)
            resolution = document.resolve(bookmark)
            assert resolution.path == str(picture) and not resolution.stale
        with pytest.raises(docbm.DocbmError) as raised:
            draft.create(b"other\n")
    assert raised.value.code == "documentExists"
    assert board.read_bytes() == contents
    assert docbm.check(board).verdict == "ok"
    plain_atomic_save(board, contents)
    assert docbm.repair(board).action == "restored"


def test_save_as_reanchors_bookmarks_for_the_copys_folder(notes: Path, picture: Path, folder: Path) -> None:
    """A copy in another folder carries the key; its re-anchored bookmarks resolve there
    unstale, the original's stale; a text that is no bookmark is reported, not dropped; a
    copy for someone else carries no key."""
    copies = folder / "copies"
    copies.mkdir()
    copy_path = copies / "notes.txt"
    with docbm.Document(notes) as document:
        bookmark = document.make_bookmark(picture)
        made, garbage = document.reanchor(copy_path, [bookmark, "garbage"])
        assert made.outcome == "reanchored" and made.bookmark is not None and made.code is None
        assert garbage.outcome == "failed" and garbage.code == "corrupt" and garbage.message
        assert garbage.bookmark is None and garbage.candidates == []
        with document.save_copy(copy_path, f"notes\n{made.bookmark}\n".encode()) as copy:
            assert copy.path == str(copy_path)
            resolution = copy.resolve(made.bookmark)
            assert resolution.path == str(picture) and not resolution.stale
            assert copy.resolve(bookmark).stale
        with document.save_copy(copies / "shared.txt", b"shared\n", key="strip") as shared:
            with pytest.raises(docbm.DocbmError) as raised:
                shared.resolve(bookmark)
            assert raised.value.code == "keyMissing"
        with pytest.raises(ValueError):
            document.save_copy(copies / "never.txt", b"x", key="keep")  # type: ignore[arg-type]
    assert not (copies / "never.txt").exists()


def test_a_copy_without_its_key_adopts_the_bookmarks_the_user_confirms(folder: Path) -> None:
    """A copy that travelled without its key lists its bookmark with the file beside it;
    adopting it makes a bookmark that resolves there; candidates of two lists are refused."""
    project, copy = folder / "project", folder / "copy"
    project.mkdir()
    copy.mkdir()
    (project / "cat.png").write_bytes(b"cat\n")
    (copy / "cat.png").write_bytes(b"cat\n")
    (project / "board.txt").write_bytes(b"board\n")
    with docbm.Document(project / "board.txt") as original:
        bookmark = original.make_bookmark(project / "cat.png")
    (copy / "board.txt").write_bytes(f"board {bookmark}\n".encode())  # without its attributes
    with docbm.Document(copy / "board.txt") as document:
        (candidate,) = document.adoption_candidates()
        assert candidate.bookmark == bookmark and candidate.recorded_path == "cat.png"
        assert candidate.target == os.path.realpath(copy / "cat.png")
        assert not candidate.target_is_folder and not candidate.needs_own_confirmation
        (other,) = document.adoption_candidates()
        with pytest.raises(ValueError):
            document.adopt([candidate, other])
        (made,) = document.adopt([candidate])
        assert made is not None
        resolution = document.resolve(made)
        assert resolution.path == os.path.realpath(copy / "cat.png") and not resolution.stale
        assert document.adopt([]) == []


def test_a_file_swapped_into_a_recorded_path_gets_no_new_key_and_the_way_out(
    notes: Path, picture: Path, folder: Path
) -> None:
    """The escrow records a key at the path; a file readable by more users put there is not
    shown to be that document's save, so no new key is made, and the message names the
    way out (forget the record) rather than an adoption that would be refused."""
    notes.chmod(0o600)
    with docbm.Document(notes) as document:
        document.make_bookmark(picture)
        swapped = folder / "swapped.txt"
        swapped.write_bytes(b"someone else's\n")
        swapped.chmod(0o644)
        swapped.rename(notes)
        with pytest.raises(docbm.DocbmError) as raised:
            document.make_bookmark(picture)
    assert raised.value.code == "documentUnproven"
    assert f"docbm escrow forget {notes}" in raised.value.message
    assert "adopt" not in raised.value.message
    assert KEY not in os.listxattr(notes)


def test_a_document_holding_another_documents_bookmark_gets_its_own_key_back(
    notes: Path, picture: Path, folder: Path
) -> None:
    # Its bookmarks name two keys; the escrow records one of them for it, which repair puts back.
    other = folder / "other.txt"
    other.write_bytes(b"other\n")
    with docbm.Document(other) as elsewhere:
        foreign = elsewhere.make_bookmark(picture)
    with docbm.Document(notes) as document:
        own = document.make_bookmark(picture)
        document.replace(f"{own}\n{foreign}\n".encode())
        assert docbm.check(notes).verdict == "mixed"
        plain_atomic_save(notes, f"edited\n{own}\n{foreign}\n".encode())
        assert docbm.check(notes).verdict == "keyLost"
        report = docbm.repair(notes)
        assert report.action == "restored", report.message
        assert report.verdict == "mixed"
        assert document.resolve(own).path == str(picture)


def test_repair_refuses_a_file_that_is_not_the_document(folder: Path, picture: Path) -> None:
    # A file with a bookmark pasted in, which the escrow never saw as the key's document.
    notes = folder / "notes.txt"
    notes.write_bytes(b"notes\n")
    with docbm.Document(notes) as document:
        bookmark = document.make_bookmark(picture)
    stranger = folder / "stranger.txt"
    stranger.write_bytes(f"{bookmark}\n".encode())
    report = docbm.repair(stranger)
    assert report.action == "refused"
    assert report.refusal is not None
    assert KEY not in os.listxattr(stranger)
    # The document still carries the key: the remedy names it, and the message ends with it.
    assert report.remedy in ("adopt", "repairAllowingUnrecorded")
    assert report.recorded_document == os.path.realpath(notes)
    assert report.advice is not None and report.message.endswith(report.advice)
    # The app knows the file is the user's own copy: repair may put the key on it.
    os.chmod(stranger, 0o600)
    allowed = docbm.repair(stranger, allow_unrecorded=True)
    assert allowed.action == "restored", allowed.message
    assert allowed.verdict == "ok"
    assert KEY in os.listxattr(stranger)


def test_check_of_what_cannot_be_read(folder: Path) -> None:
    result = docbm.check(folder / "absent.txt")
    assert result.verdict == "unreadable"
    assert result.is_problem


def test_errors_are_the_same_in_swift_c_and_python(notes: Path, picture: Path, folder: Path) -> None:
    """One failure of each kind resolve meets, made through Python (over C) and through the
    docbm command (Swift): the same code, recommendation, message, path, last known path,
    errno, system call and step. (test_error_parity.py compares the others.)"""
    if not error_pair.command():
        pytest.skip("DOCBM_COMMAND names no docbm command to compare with (make test-python sets it)")

    def resolve(document: Path, bookmark: str) -> Tuple[error_pair.Report, error_pair.Report]:
        return error_pair.pair("resolve", str(document), bookmark)

    with docbm.Document(notes) as opened:
        bookmark = opened.make_bookmark(picture)
        opened.replace(f"notes\n{bookmark}\n".encode())
    changed = bookmark[:-2] + ("B" if bookmark[-2] == "A" else "A") + bookmark[-1]
    seen = {"corrupt": resolve(notes, "not a bookmark"), "tampered": resolve(notes, changed)}
    contents = picture.read_bytes()
    picture.unlink()
    seen["notFoundNearby"] = resolve(notes, bookmark)
    picture.write_bytes(contents)
    # Another document's key, a key attribute that does not parse, no document, a FIFO.
    other = folder / "other.txt"
    other.write_bytes(b"other\n")
    with docbm.Document(other) as opened:
        opened.make_bookmark(picture)
    seen["keyMismatch"] = resolve(other, bookmark)
    malformed = folder / "malformed.txt"
    malformed.write_bytes(b"malformed\n")
    os.setxattr(malformed, "user.docbm.key", b"not a key")
    seen["keyMalformed"] = resolve(malformed, bookmark)
    seen["notFound"] = resolve(folder / "never.txt", bookmark)
    fifo = folder / "fifo"
    os.mkfifo(fifo)
    seen["unsupportedFileType"] = resolve(fifo, bookmark)
    plain_atomic_save(notes, f"edited elsewhere\n{bookmark}\n".encode())
    seen["keyMissing"] = resolve(notes, bookmark)
    for code, (swift, python) in seen.items():
        assert swift["code"] == code, (swift, python)
        assert swift == python, code
    assert seen["notFoundNearby"][1]["lastKnownPath"] == str(picture)
    # str() gives the code, then the message, as Swift's description does.
    with docbm.Document(notes) as opened, pytest.raises(docbm.DocbmError) as raised:
        opened.resolve(bookmark)
    assert str(raised.value).startswith(f"keyMissing: {raised.value.message}")


def test_errors_carry_their_code(notes: Path, picture: Path, folder: Path) -> None:
    with docbm.Document(notes) as document:
        with pytest.raises(docbm.DocbmError) as raised:
            document.make_bookmark(folder / "nowhere")
        assert raised.value.code == "notFound"
        with pytest.raises(docbm.DocbmError) as raised:
            document.resolve("not a bookmark")
        assert raised.value.code == "corrupt"

        bookmark = document.make_bookmark(picture)
        changed = bookmark[:-2] + ("B" if bookmark[-2] == "A" else "A") + bookmark[-1]
        with pytest.raises(docbm.DocbmError) as raised:
            document.resolve(changed)
        assert raised.value.code == "tampered"

        picture.unlink()
        with pytest.raises(docbm.DocbmError) as raised:
            document.resolve(bookmark)
        assert raised.value.code == "missing"
        assert raised.value.recommendation == "forget"

    other = folder / "other.txt"
    other.write_bytes(b"")
    with docbm.Document(other) as document:
        document.make_bookmark(notes)
        with pytest.raises(docbm.DocbmError) as raised:
            document.resolve(bookmark)
        assert raised.value.code == "keyMismatch"

    with pytest.raises(docbm.DocbmError) as raised:
        docbm.Document("")
    assert raised.value.code == "invalidArgument"
    assert raised.value.recommendation is None


def test_a_hard_linked_document_is_not_split(notes: Path, picture: Path, folder: Path) -> None:
    with docbm.Document(notes) as document:
        document.make_bookmark(picture)
        os.link(notes, folder / "link.txt")
        with pytest.raises(docbm.DocbmError) as raised:
            document.replace(b"new")
        assert raised.value.code == "hardLinked"
        assert raised.value.recommendation == "confirmSave"
    assert notes.read_bytes() == b"notes\n"


def test_a_read_only_document_is_saved_only_when_allowed(notes: Path) -> None:
    notes.chmod(0o444)
    with docbm.Document(notes) as document:
        with pytest.raises(docbm.DocbmError) as raised:
            document.replace(b"new")
        assert raised.value.code == "readOnlyDocument"
        assert raised.value.recommendation == "confirmSave"
        assert notes.read_bytes() == b"notes\n"
        document.replace(b"new", allow_read_only=True)
    assert notes.read_bytes() == b"new"
    assert notes.stat().st_mode & 0o7777 == 0o444


def test_a_target_in_the_trash_says_so_stale_or_not(
    notes: Path, picture: Path, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = folder.parent / "data"
    (data / "Trash" / "files").mkdir(parents=True)
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    with docbm.Document(notes) as document:
        bookmark = document.make_bookmark(picture)
        assert not document.resolve(bookmark).is_in_trash
        picture.rename(data / "Trash" / "files" / picture.name)
        moved = document.resolve(bookmark)
        assert moved.is_in_trash and "inTrash" in moved.stale_reasons
        assert moved.refreshed is not None
        again = document.resolve(moved.refreshed)
        assert not again.stale
        assert again.is_in_trash


def test_resolve_all(notes: Path, picture: Path, folder: Path) -> None:
    gone = folder / "gone.txt"
    gone.write_bytes(b"")
    with docbm.Document(notes) as document:
        first = document.make_bookmark(picture)
        second = document.make_bookmark(gone)
        gone.unlink()
        results = document.resolve_all([first, "garbage", second])
        assert document.resolve_all([]) == []
    assert isinstance(results[0], docbm.Resolution) and results[0].path == str(picture)
    assert isinstance(results[1], docbm.DocbmError) and results[1].code == "corrupt"
    assert isinstance(results[2], docbm.DocbmError) and results[2].code == "missing"


def test_search_reach(notes: Path, picture: Path, folder: Path) -> None:
    with docbm.Document(notes) as document:
        bookmark = document.make_bookmark(picture)
    picture.unlink()
    with docbm.Document(notes, search="nearby") as nearby:
        with pytest.raises(docbm.DocbmError) as raised:
            nearby.resolve(bookmark)
    assert raised.value.code == "notFoundNearby"
    assert raised.value.recommendation == "searchWider"
    with docbm.Document(notes, search_time=0) as hurried:
        with pytest.raises(docbm.DocbmError) as raised:
            hurried.resolve(bookmark)
    assert raised.value.code == "notFoundNearby"
    assert "time limit" in raised.value.message
    for wrong in ({"search": "everywhere"}, {"search_time": -1}):
        with pytest.raises(ValueError):
            docbm.Document(notes, **wrong)  # type: ignore[arg-type]


def test_relink(notes: Path, folder: Path) -> None:
    old = folder / "photos"
    old.mkdir()
    target = old / "a.png"
    target.write_bytes(b"a")
    with docbm.Document(notes) as document:
        bookmark = document.make_bookmark(target)
        new = folder / "archive"
        old.rename(new)
        relinked, broken = document.relink([bookmark, "garbage"], old, new)
        assert document.relink([], old, new) == []
        assert relinked.outcome == "relinked"
        assert relinked.candidate == str(new / "a.png")
        assert relinked.refreshed is not None
        assert document.resolve(relinked.refreshed).path == str(new / "a.png")
        assert broken.outcome == "failed" and broken.code == "corrupt"
        (new / "a.png").unlink()
        (new / "a.png").write_bytes(b"another")
        (replaced,) = document.relink([bookmark], old, new)
        assert replaced.outcome == "notTheTarget" and replaced.reason


def test_threads_share_a_document(notes: Path, folder: Path) -> None:
    targets = []
    for index in range(8):
        target = folder / f"target-{index}.txt"
        target.write_bytes(b"")
        targets.append(target)
    with docbm.Document(notes) as document:
        bookmarks = [document.make_bookmark(target) for target in targets]
        results: Dict[int, Any] = {}

        def resolve(index: int) -> None:
            for _ in range(20):
                results[index] = document.resolve(bookmarks[index]).path

        threads = [threading.Thread(target=resolve, args=(index,)) for index in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert results == {index: str(target) for index, target in enumerate(targets)}


def test_a_closed_document_refuses_calls(notes: Path, picture: Path) -> None:
    document = docbm.Document(notes)
    document.close()
    document.close()
    with pytest.raises(ValueError):
        document.make_bookmark(picture)


def test_closing_while_other_threads_resolve(notes: Path, picture: Path) -> None:
    """close() waits for the calls in flight; the threads then get ValueError, never a crash."""
    for _ in range(20):
        document = docbm.Document(notes)
        bookmark = document.make_bookmark(picture)
        started = threading.Barrier(5)
        outcomes: List[Any] = []

        def resolve() -> None:
            started.wait()
            try:
                while True:
                    assert document.resolve(bookmark).path == str(picture)
            except ValueError:
                outcomes.append("closed")

        threads = [threading.Thread(target=resolve) for _ in range(4)]
        for thread in threads:
            thread.start()
        started.wait()
        document.close()
        for thread in threads:
            thread.join()
        assert outcomes == ["closed"] * 4


def test_a_nul_byte_in_a_path_or_bookmark_raises_value_error(notes: Path, picture: Path) -> None:
    with pytest.raises(ValueError):
        docbm.Document(str(notes) + "\0/../x")
    with pytest.raises(ValueError):
        docbm.check(bytes(notes) + b"\0x")
    with pytest.raises(ValueError):
        docbm.repair(str(notes) + "\0")
    with docbm.Document(notes) as document:
        with pytest.raises(ValueError):
            document.make_bookmark(str(picture) + "\0.png")
        bookmark = document.make_bookmark(picture)
        with pytest.raises(ValueError):
            document.resolve(bookmark + "\0tail")
        with pytest.raises(ValueError):
            document.resolve_all([bookmark, "\0"])
        assert document.resolve(bookmark).path == str(picture)


def test_the_lint_hands_a_name_that_is_not_utf8_exactly(folder: Path) -> None:
    latin = Path(os.fsdecode(bytes(folder) + b"/caf\xe9"))
    latin.mkdir()

    def save(path: str) -> None:
        assert os.path.exists(path), path
        with docbm.Document(path) as document:
            document.replace(b"{}\n")

    report = docbm.lint_save(save, folder=latin)
    assert report.is_safe, report.summary
    assert os.listdir(latin) == []


HEADER = Path(__file__).resolve().parents[2] / "Sources" / "DocbmC" / "include" / "docbm.h"


@pytest.mark.skipif(not HEADER.exists(), reason="docbm.h is not beside the package (an installed copy)")
def test_the_header_names_match_swift() -> None:
    """Each enumeration value of docbm.h has the name libdocbm gives it: DOCBM_KEY_MISSING
    is "keyMissing", as Swift and the CLI spell it; the package's enumeration has the
    same member with that value (docbm.Code.KEY_MISSING), and no other."""
    from docbm._library import lib

    text = HEADER.read_text()
    prefixes: Dict[str, Tuple[str, Any, Optional[Type[enum.Enum]]]] = {
        "docbm_code": ("DOCBM_", lib.docbm_code_name, docbm.Code),
        "docbm_recommendation": ("DOCBM_RECOMMEND_", lib.docbm_recommendation_name, docbm.Recommendation),
        "docbm_stale_reason": ("DOCBM_STALE_", lib.docbm_stale_reason_name, docbm.StaleReason),
        "docbm_verdict": ("DOCBM_VERDICT_", lib.docbm_verdict_name, docbm.Verdict),
        "docbm_repair_action": ("DOCBM_REPAIR_", lib.docbm_repair_action_name, docbm.RepairAction),
        "docbm_lint_verdict": ("DOCBM_LINT_", lib.docbm_lint_verdict_name, docbm.LintVerdict),
        "docbm_search_reach": ("DOCBM_SEARCH_", lib.docbm_search_reach_name, None),
        "docbm_relink_outcome": ("DOCBM_RELINK_", lib.docbm_relink_outcome_name, docbm.RelinkOutcome),
        "docbm_reanchor_outcome": ("DOCBM_REANCHOR_", lib.docbm_reanchor_outcome_name, docbm.ReanchorOutcome),
        "docbm_record_state": ("DOCBM_RECORD_", lib.docbm_record_state_name, docbm.RecordState),
        "docbm_event_kind": ("DOCBM_EVENT_", lib.docbm_event_kind_name, docbm.EventKind),
        "docbm_save_step": ("DOCBM_STEP_", lib.docbm_save_step_name, docbm.SaveStep),
    }
    # Names whose capitals are an abbreviation's, not a word's start.
    spelled = {"DOCBM_STEP_COPY_ACL": "copyACL"}
    # Values without names: each is the package's own constant.
    constants = {
        "docbm_allowance": {
            "DOCBM_ALLOW_SPLIT_HARD_LINKS": docbm._ALLOW_SPLIT_HARD_LINKS,
            "DOCBM_ALLOW_OWNER_CHANGE": docbm._ALLOW_OWNER_CHANGE,
            "DOCBM_ALLOW_READ_ONLY": docbm._ALLOW_READ_ONLY,
        },
        "docbm_escrow_use": {"DOCBM_USER_ESCROW": docbm._USER_ESCROW, "DOCBM_NO_ESCROW": docbm._NO_ESCROW},
        "docbm_copy_key": {"DOCBM_COPY_CARRY_KEY": docbm._COPY_CARRY_KEY, "DOCBM_COPY_STRIP_KEY": docbm._COPY_STRIP_KEY},
        "docbm_watch_flags": {"DOCBM_WATCH_REPAIRS": docbm._WATCH_REPAIRS, "DOCBM_WATCH_NOT_RECURSIVE": docbm._WATCH_NOT_RECURSIVE},
    }
    checked = 0
    for body, name in re.findall(r"typedef enum (\w+) \{(.*?)\} \1;", text, re.S):
        if body in constants:
            found = {constant: eval(value) for constant, value in re.findall(r"\b(DOCBM_\w+) = ([^,\n]+)", name)}
            assert found == constants[body]
            continue
        prefix, function, members = prefixes[body]
        listed = set()
        for constant, value in re.findall(r"\b(DOCBM_\w+) = ([^,\n]+)", name):
            number = eval(value)  # "1 << 3" and plain numbers only
            words = constant[len(prefix):].lower().split("_")
            expected = spelled.get(constant, words[0] + "".join(word.capitalize() for word in words[1:]))
            if constant == "DOCBM_RECOMMEND_NONE":
                assert function(number) is None
                continue
            assert function(number) == expected.encode(), constant
            if members is not None:
                assert members[constant[len(prefix):]].value == expected, constant
                listed.add(constant[len(prefix):])
            checked += 1
        if members is not None:
            assert {member.name for member in members} == listed, body
    assert checked == 39 + 10 + 7 + 9 + 3 + 4 + 2 + 5 + 3 + 3 + 12 + 11


def test_names_compare_print_and_grow_as_strings() -> None:
    """A name is its string: it compares and prints as the name, and a name this package
    does not list (a newer libdocbm's) still makes a member."""
    code: str = docbm.Code.KEY_MISSING
    assert code == "keyMissing" and "keyMissing" == code
    assert str(docbm.Code.KEY_MISSING) == "keyMissing"
    assert f"{docbm.Verdict.KEY_LOST}" == "keyLost"
    assert json.dumps({"code": docbm.Code.MISSING}) == '{"code": "missing"}'
    newer = docbm.Code("someNewerCode")
    assert isinstance(newer, docbm.Code) and newer == "someNewerCode"
    assert newer not in list(docbm.Code)
    with pytest.raises(ValueError):
        docbm.Code(7)


def test_the_lint_catches_a_save_that_drops_the_key(folder: Path) -> None:
    def plain(path: str) -> None:
        plain_atomic_save(Path(path), b"{}\n")

    report = docbm.lint_save(plain, folder)
    assert report.verdict == "lost"
    assert not report.is_safe
    assert "keyLost" in [finding.kind for finding in report.findings]
    assert "keyLost" in report.summary
    # The advice names the Python call, never libdocbm's nor Swift's.
    for text in [finding.fix for finding in report.findings] + [report.summary]:
        assert "Document.replace(data)" in text
        assert "docbm_" not in text and "replaceDocument" not in text, text
    assert list(folder.iterdir()) == [], "the scratch document is removed"


def test_the_lint_passes_docbms_save(folder: Path) -> None:
    def safe(path: str) -> None:
        with docbm.Document(path) as document:
            document.replace(b"{}\n")

    report = docbm.lint_save(safe, folder)
    assert report.is_safe, report.summary
    assert report.verdict == "kept"
    assert report.findings == ()


def test_the_lint_reports_a_save_that_raises(folder: Path) -> None:
    def failing(path: str) -> None:
        raise PermissionError("no saving today")

    report = docbm.lint_save(failing, folder)
    assert "saveFailed" in [finding.kind for finding in report.findings]
    assert isinstance(report.save_error, PermissionError)


def test_an_interrupt_during_the_linted_save_reaches_the_caller(folder: Path) -> None:
    def interrupted(path: str) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        docbm.lint_save(interrupted, folder)
    assert list(folder.iterdir()) == [], "the scratch document is removed"


def test_a_store_remembers_files_across_renames_and_tells_of_changes(folder: Path) -> None:
    """A store from Python: records with and without bookmarks, a renamed target found, a
    second store on the same file whose change makes the first one's descriptor readable,
    a deleted target counted by refresh, and the store's own error codes."""
    import selectors

    plan = folder / "plan.md"
    plan.write_text("plan\n")
    file = folder / "state" / "recents.sqlite"
    with docbm.Store(file) as store:
        assert store.path == str(file)
        assert store.records() == []
        record = store.add(plan)
        assert (record.key, record.path, record.state, record.failure) == (str(plan), str(plan), "available", None)
        assert record.has_bookmark and not record.pinned and not record.is_gone and record.last_used_ns is None
        later = store.add_path_only(folder / "later.md", key="later")
        assert (later.state, later.has_bookmark) == ("unknown", False)

        renamed = folder / "plan-final.md"
        plan.rename(renamed)
        assert store.resolve(str(plan)).path == str(renamed)
        assert store.pin(str(plan)).pinned
        used = store.mark_used(str(plan))
        assert used.last_used_ns is not None and used.last_used_ns >= used.created_ns

        watcher = selectors.DefaultSelector()
        watcher.register(store, selectors.EVENT_READ)
        store.take_changes()
        with docbm.Store(file) as other:
            assert [record.key for record in other] == [str(plan), "later"]
            assert other.forget("later")
            assert not other.forget("later")
        assert watcher.select(timeout=60), "the other store's change did not reach this one"
        assert store.take_changes() >= 1
        assert [record.key for record in store] == [str(plan)]

        renamed.unlink()
        assert store.refresh() == 1
        (gone,) = store.records()
        assert gone.state == "unavailable" and gone.failure in ("missing", "notFoundNearby") and gone.pinned

        with pytest.raises(docbm.DocbmError) as raised:
            store.resolve("nobody")
        assert (raised.value.code, raised.value.recommendation) == ("noSuchKey", None)
        with pytest.raises(ValueError):
            store.mark_used("")
    with pytest.raises(ValueError):
        store.records()

    notes = folder / "notes.txt"
    notes.write_text("not a store\n")
    with pytest.raises(docbm.DocbmError) as raised:
        docbm.Store(notes)
    assert raised.value.code == "storeCorrupt" and notes.read_text() == "not a store\n"
    with pytest.raises(docbm.DocbmError) as raised:
        docbm.Store(folder)
    assert raised.value.code == "notAStore"


def test_a_recents_store_keeps_the_most_recently_used(folder: Path) -> None:
    with docbm.Store(folder / "recents.sqlite", recents_limit=2) as recents:
        for name in ("one", "two", "three"):
            (folder / name).write_text(name)
            recents.add(folder / name, key=name)
        assert [record.key for record in recents] == ["three", "two"]
        recents.mark_used("two")
        assert [record.key for record in recents] == ["two", "three"]
    with pytest.raises(ValueError):
        docbm.Store(folder / "other.sqlite", recents_limit=0)


def test_a_watcher_follows_a_document_through_a_rename_and_a_save_that_drops_its_key(folder: Path) -> None:
    notes = folder / "notes.txt"
    notes.write_text("notes\n")
    (folder / "picture.png").write_bytes(b"png")
    with docbm.Document(notes) as document:
        document.make_bookmark(folder / "picture.png")

    def wait_for(watcher: docbm.Watcher, kind: str) -> docbm.WatchEvent:
        while True:
            events = watcher.wait(timeout=60)
            assert events, f"no {kind} event came"
            for event in events:
                if event.kind == kind:
                    return event

    with docbm.Watcher.folders([folder]) as watcher:
        assert watcher.read() == [] and not watcher.has_nothing_left
        renamed = folder / "renamed.txt"
        notes.rename(renamed)
        moved = wait_for(watcher, "moved")
        assert (moved.path, moved.old_path, moved.is_own_save) == (str(renamed), str(notes), False)
        assert moved.key and moved.message
        plain_atomic_save(renamed, b"edited elsewhere\n")
        lost = wait_for(watcher, "keyLost")
        assert lost.path == str(renamed) and lost.key == moved.key
    with pytest.raises(ValueError):
        watcher.read()
    with pytest.raises(docbm.DocbmError) as raised:
        docbm.Watcher.folders([folder / "no-such-folder"])
    assert raised.value.code == "notFound"
    with pytest.raises(ValueError):
        docbm.Watcher.documents([])


def test_a_folder_document_is_written_by_the_app_and_swapped_in_whole(folder: Path, picture: Path) -> None:
    board = folder / "board.folder"

    def write(text: bytes) -> Any:
        def into(path: str) -> None:
            os.mkdir(path)
            Path(path, "contents.txt").write_bytes(text)

        return into

    with docbm.NewDocument(board) as draft:
        bookmark = draft.make_bookmark(picture)
        document = draft.create_with(write(f"{bookmark}\n".encode()))
    with document:
        document.replace_with(write(b"second\n"))
        assert (board / "contents.txt").read_bytes() == b"second\n"
        assert sorted(os.listdir(folder)) == sorted(["board.folder", picture.name])
        assert not document.resolve(bookmark).stale

        def failing(path: str) -> None:
            Path(path).write_bytes(b"half")
            raise OSError(errno.EIO, "the app's own failure")

        with pytest.raises(OSError, match="the app's own failure"):
            document.replace_with(failing)
        assert (board / "contents.txt").read_bytes() == b"second\n"
        with pytest.raises(docbm.DocbmError) as nothing:
            document.replace_with(lambda path: None)
        assert nothing.value.code == docbm.Code.NOTHING_WRITTEN

        copy = document.save_copy_with(folder / "copy.folder", write(b"copy\n"), key="strip")
        with copy:
            assert (folder / "copy.folder" / "contents.txt").read_bytes() == b"copy\n"
            with pytest.raises(docbm.DocbmError) as keyless:
                copy.resolve(bookmark)
            assert keyless.value.code == docbm.Code.KEY_MISSING


def test_a_store_keeps_what_the_app_keeps_with_a_file(folder: Path) -> None:
    plan = folder / "plan.md"
    plan.write_text("plan\n")
    with docbm.Store(folder / "recents.sqlite") as store:
        assert store.add(plan, key="plan").metadata == {}
        record = store.set_metadata("plan", {"title": "Plan", "line": 12, "tags": ["work"]})
        assert record.metadata == {"title": "Plan", "line": 12, "tags": ["work"]}
        assert store.records()[0].metadata == record.metadata
        with pytest.raises(ValueError):
            store.set_metadata("plan", float("nan"))
        with pytest.raises(docbm.DocbmError) as missing:
            store.set_metadata("nobody", "x")
        assert missing.value.code == docbm.Code.NO_SUCH_KEY
        assert store.resolve("plan").metadata["line"] == 12


def test_a_tree_check_finds_the_document_that_lost_its_key(folder: Path, picture: Path) -> None:
    inner = folder / "inner"
    inner.mkdir()
    kept, lost = folder / "kept.txt", inner / "lost.txt"
    for path in (kept, lost):
        path.write_bytes(b"doc\n")
        with docbm.Document(path) as document:
            bookmark = document.make_bookmark(picture)
            document.replace(f"{bookmark}\n".encode())
    plain_atomic_save(lost, lost.read_bytes())
    found = docbm.check_tree(folder)
    assert found.unreadable_folders == 0
    assert sorted(check.path for check in found.checks) == sorted(str(p) for p in (kept, lost, picture))
    assert [(check.path, check.verdict) for check in found.problems] == [(str(lost), docbm.Verdict.KEY_LOST)]
    assert docbm.check(kept).path == str(kept)
    with pytest.raises(docbm.DocbmError) as nothing:
        docbm.check_tree("")
    assert nothing.value.code == docbm.Code.INVALID_ARGUMENT


def test_save_errors_are_the_same_in_swift_c_and_python(folder: Path) -> None:
    """A save refused for each reason it is refused before writing, made through Python
    (over C) and through `docbm save` (Swift): the same code, recommendation, message, path,
    errno, system call and step."""
    if not error_pair.command():
        pytest.skip("DOCBM_COMMAND names no docbm command to compare with (make test-python sets it)")
    contents = folder / "contents.txt"
    contents.write_bytes(b"new\n")
    linked = folder / "linked.txt"
    linked.write_bytes(b"linked\n")
    os.link(linked, folder / "second-name.txt")
    read_only = folder / "read-only.txt"
    read_only.write_bytes(b"read only\n")
    read_only.chmod(0o444)
    fifo = folder / "fifo"
    os.mkfifo(fifo)
    failures = {"hardLinked": linked, "readOnlyDocument": read_only, "unsupportedFileType": fifo}
    for code, document in failures.items():
        swift, python = error_pair.pair("save", str(document), str(contents))
        assert swift["code"] == code, (swift, python)
        assert swift == python, code
    assert linked.read_bytes() == b"linked\n" and read_only.read_bytes() == b"read only\n"
