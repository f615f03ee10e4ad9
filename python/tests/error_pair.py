"""One failure made twice, through the docbm command (Swift) and through this package (over
C), and both reports as the same fields, for the tests that compare them.

Run as a program (``error_pair.py ACTION ARGUMENT...``, where ACTION is one of
:data:`ACTIONS`), it prints both reports as one JSON object, ``{"swift": ..., "python":
...}``: how the tests compare failures they can only make in another mount namespace or as
another user, where this process cannot follow.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import docbm

#: The fields every report has, under the names the CLI's JSON gives them.
FIELDS = ("code", "recommendation", "message", "path", "lastKnownPath", "errno", "systemCall", "step")

Report = Dict[str, Any]


def command() -> Optional[str]:
    """The docbm command to compare with: ``$DOCBM_COMMAND`` (``make test-python`` sets it)."""
    return os.environ.get("DOCBM_COMMAND") or None


def swift(arguments: List[str]) -> Report:
    """The error ``docbm ARGUMENTS --json`` reports, with every field (absent ones ``None``)."""
    found = command()
    assert found, "DOCBM_COMMAND names no docbm command"
    ran = subprocess.run([found, *arguments], capture_output=True, text=True)
    assert ran.returncode == 1, f"{arguments}: exit {ran.returncode}\n{ran.stdout}{ran.stderr}"
    error: Dict[str, Any] = json.loads(ran.stdout)["error"]
    return {field: error.get(field) for field in FIELDS}


def python(call: Callable[[], object]) -> Report:
    """The error ``call`` raises, as the same fields."""
    try:
        call()
    except docbm.DocbmError as error:
        return {
            "code": str(error.code),
            "recommendation": None if error.recommendation is None else str(error.recommendation),
            "message": error.message,
            "path": error.path,
            "lastKnownPath": error.last_known_path,
            "errno": error.errno,
            "systemCall": error.system_call,
            "step": None if error.step is None else str(error.step),
        }
    raise AssertionError(f"{call} raised nothing")


def _resolve(document: str, bookmark: str) -> Tuple[Report, Report]:
    def call() -> None:
        with docbm.Document(document, search="nearby") as opened:
            opened.resolve(bookmark)

    return swift(["resolve", "--json", "--search", "nearby", document, bookmark]), python(call)


def _save(document: str, contents: str) -> Tuple[Report, Report]:
    def call() -> None:
        with docbm.Document(document) as opened:
            opened.replace(Path(contents).read_bytes())

    return swift(["save", "--json", "--from", contents, document]), python(call)


def _bookmark(document: str, target: str) -> Tuple[Report, Report]:
    def call() -> None:
        with docbm.Document(document) as opened:
            opened.make_bookmark(target)

    return swift(["bookmark", "--json", document, target]), python(call)


def _store(store: str) -> Tuple[Report, Report]:
    def call() -> None:
        with docbm.Store(store) as opened:
            opened.records()

    return swift(["store", "list", "--json", store]), python(call)


def _export(file: str) -> Tuple[Report, Report]:
    return swift(["escrow", "export", "--json", file]), python(lambda: docbm.export_escrow(file))


def _resolve_everywhere(document: str, bookmark: str) -> Tuple[Report, Report]:
    def call() -> None:
        with docbm.Document(document, search="filesystem", search_time=None) as opened:
            opened.resolve(bookmark)

    return swift(["resolve", "--json", "--search-time", "none", document, bookmark]), python(call)


#: What the program can make fail: each takes its arguments and gives (Swift, Python).
ACTIONS: Dict[str, Callable[..., Tuple[Report, Report]]] = {
    "resolve": _resolve,
    "save": _save,
    "bookmark": _bookmark,
    "store": _store,
    "export": _export,
    "resolve-everywhere": _resolve_everywhere,
}


def pair(action: str, *arguments: str) -> Tuple[Report, Report]:
    """The failure of ``action`` made through Swift and through Python."""
    return ACTIONS[action](*arguments)


def main(arguments: List[str]) -> int:
    swift_report, python_report = pair(arguments[0], *arguments[1:])
    print(json.dumps({"swift": swift_report, "python": python_report}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
