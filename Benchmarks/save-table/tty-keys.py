#!/usr/bin/env python3
"""Runs a terminal program (nano) under a pseudo-terminal and types KEYS into it.

usage: tty-keys.py KEYS PROGRAM [ARG...]

KEYS is typed one character at a time after a short wait; Python escapes are allowed
(\\x0f is Ctrl-O, \\r is Enter, \\x18 is Ctrl-X). Exits with the program's status; kills it
after 20 seconds.
"""
import os, pty, select, sys, time

keys = sys.argv[1].encode().decode("unicode_escape").encode("latin-1")
pid, fd = pty.fork()
if pid == 0:
    os.environ.setdefault("TERM", "xterm")
    os.execvp(sys.argv[2], sys.argv[2:])

def drain(seconds):
    end = time.time() + seconds
    while time.time() < end:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                os.read(fd, 65536)
            except OSError:
                return

drain(0.5)
for key in keys:
    os.write(fd, bytes([key]))
    drain(0.15)
deadline = time.time() + 20
while True:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        break
    if time.time() > deadline:
        os.kill(pid, 9)
        done, status = os.waitpid(pid, 0)
        break
    drain(0.1)
sys.exit(os.waitstatus_to_exitcode(status) if status >= 0 else 1)
