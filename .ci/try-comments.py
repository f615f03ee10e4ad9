#!/usr/bin/python3
"""Fails when a `try?` in the Swift sources carries no comment saying why its failure
does not matter.

A `try?` throws its error away: that is right only where the failure truly does not
matter (clean-up after a failure already reported, an optional hint, a probe where failure
means "no"), and the reader is owed the reason. It counts as explained when a comment
stands on its line, on a line of the same statement, or directly above that statement;
a statement that continues an `if` or `do` (`} else if`, `} catch`) counts from the line
that opened it, so that one comment can speak for a chain.

Usage: try-comments.py [folder ...]   (default: Sources)
"""

import pathlib
import re
import sys

TRY = re.compile(r"\btry\?")
# A line ending in one of these goes on on the next.
CONTINUES = (",", "(", "[", "=", "&&", "||", "?", ":", "->", "??", "+", "-", "*", "|", "&")
CONTINUES_WORDS = ("guard", "if", "while", "return", "else")
# A line starting with one of these goes on from the line above.
CONTINUED = (".", "&&", "||", "?", ":", "??", ")", "]", "->", "+", "-", "*", "|", "&")
CONTINUED_WORDS = ("else", "where", "as", "is")


def code_of(line, in_block):
    """The line's code, without string literals and comments; whether it has a comment;
    whether a block comment is still open at its end."""
    code = []
    comment = False
    i = 0
    in_string = False
    while i < len(line):
        if in_block:
            end = line.find("*/", i)
            comment = True
            if end < 0:
                return "".join(code), comment, True
            i = end + 2
            in_block = False
            continue
        c = line[i]
        if in_string:
            if c == "\\":
                i += 2
                continue
            if c == '"':
                in_string = False
            i += 1
            continue
        if line.startswith("//", i):
            return "".join(code), True, False
        if line.startswith("/*", i):
            in_block = True
            comment = True
            i += 2
            continue
        if c == '"':
            in_string = True
            code.append('""')
            i += 1
            continue
        code.append(c)
        i += 1
    return "".join(code), comment, in_block


def word_at_end(text, words):
    return any(text == w or text.endswith(" " + w) for w in words)


def word_at_start(text, words):
    return any(text == w or text.startswith(w + " ") or text.startswith(w + "{") for w in words)


def check(path):
    lines = path.read_text(encoding="utf-8").splitlines()
    codes, comments = [], []
    in_block = False
    for line in lines:
        code, comment, in_block = code_of(line, in_block)
        codes.append(code.strip())
        comments.append(comment)

    def is_comment_line(i):
        return comments[i] and codes[i] == ""

    def opening_line(i):
        """The line whose `{` the `}` that starts line `i` closes."""
        depth = 0
        for j in range(i, -1, -1):
            text = codes[j] if j != i else codes[j][:1]
            for c in reversed(text):
                if c == "}":
                    depth += 1
                elif c == "{":
                    depth -= 1
                    if depth == 0:
                        return j
        return None

    problems = []
    for number, code in enumerate(codes):
        if not TRY.search(code):
            continue
        i = number
        explained = comments[i]
        while not explained:
            if codes[i].startswith("}") and word_at_start(codes[i][1:].strip(), ("else", "catch")):
                opener = opening_line(i)
                if opener is None or opener == i:
                    break
                i = opener
                explained = comments[i]
                continue
            if i == 0:
                break
            above = codes[i - 1]
            if is_comment_line(i - 1):
                explained = True
                break
            if above == "":
                break
            if (
                above.endswith(CONTINUES)
                or word_at_end(above, CONTINUES_WORDS)
                or codes[i].startswith(CONTINUED)
                or word_at_start(codes[i], CONTINUED_WORDS)
            ):
                i -= 1
                explained = comments[i]
                continue
            break
        if not explained:
            problems.append(number + 1)
    return problems


def main():
    folders = sys.argv[1:] or ["Sources"]
    failures = []
    for folder in folders:
        for path in sorted(pathlib.Path(folder).rglob("*.swift")):
            failures += [(path, line) for line in check(path)]
    for path, line in failures:
        print(
            f"{path}:{line}: `try?` without a comment saying why its failure does not matter "
            "(on its line, or directly above its statement)",
            file=sys.stderr,
        )
    if failures:
        print(
            f"try-comments: {len(failures)} unexplained `try?`: handle the error, or say why it "
            "does not matter",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
