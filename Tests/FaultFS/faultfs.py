#!/usr/bin/python3
"""A FUSE passthrough that fails chosen calls on command, for docbm's tests.

    faultfs.py SOURCE MOUNTPOINT CONTROL LOG

Mirrors the folder SOURCE at MOUNTPOINT (in the foreground, single-threaded, so calls
arrive and are logged in order). Before every call it reads CONTROL when that file changed;
each line of it is a fault:

    OPERATION ERRNO [TEXT]

OPERATION is a FUSE call (write, fsync, fsyncdir, rename, setxattr, getxattr, readdir,
read, getattr, ...), ERRNO a name such as EIO or ENOSPC, and TEXT, when given, must occur
in the call's path for the call to fail. A failing call does nothing and returns the error.
Every call is appended to LOG as "OPERATION PATH RESULT" (a rename: "rename OLD NEW RESULT"),
RESULT being "ok" or the errno name. Removing a file is a real unlink (hard_remove), never
libfuse's rename to .fuse_hidden*, so the log's renames are the callers' own. Needs
python3-fusepy (libfuse 2).
"""

import errno
import os
import sys

from fusepy import FUSE, FuseOSError, Operations


class FaultFS(Operations):
    def __init__(self, source, control, log):
        self.source = os.path.realpath(source)
        self.control = control
        self.control_stamp = None
        self.faults = []
        self.log = open(log, "a", buffering=1)

    # Faults and the log.

    def read_control(self):
        try:
            stamp = os.stat(self.control).st_mtime_ns
        except FileNotFoundError:
            self.faults, self.control_stamp = [], None
            return
        if stamp == self.control_stamp:
            return
        self.control_stamp = stamp
        faults = []
        with open(self.control) as lines:
            for line in lines:
                words = line.split()
                if len(words) >= 2 and hasattr(errno, words[1]):
                    faults.append((words[0], getattr(errno, words[1]), words[2] if len(words) > 2 else None))
        self.faults = faults

    def __call__(self, op, *args):
        path = " ".join(arg for arg in args[:2] if isinstance(arg, str)) if op in ("rename", "link", "symlink") else (
            args[0] if args and isinstance(args[0], str) else "")
        if op not in ("init", "destroy"):
            self.read_control()
            for operation, number, text in self.faults:
                if operation == op and (text is None or text in path):
                    self.log.write("%s %s %s\n" % (op, path, errno.errorcode[number]))
                    raise FuseOSError(number)
        try:
            result = super().__call__(op, *args)
        except OSError as error:
            number = error.errno or errno.EIO
            if op != "getxattr" or number != errno.ENODATA:
                self.log.write("%s %s %s\n" % (op, path, errno.errorcode.get(number, str(number))))
            raise FuseOSError(number)
        if op not in ("getattr", "getxattr", "listxattr", "statfs", "access", "flush", "release", "releasedir", "opendir", "read", "readdir"):
            self.log.write("%s %s ok\n" % (op, path))
        return result

    def real(self, path):
        return self.source + path

    # The passthrough.

    def access(self, path, amode):
        if not os.access(self.real(path), amode):
            raise FuseOSError(errno.EACCES)

    def chmod(self, path, mode):
        os.chmod(self.real(path), mode)

    def chown(self, path, uid, gid):
        os.lchown(self.real(path), uid, gid)

    def create(self, path, mode, fi=None):
        return os.open(self.real(path), os.O_RDWR | os.O_CREAT | os.O_EXCL, mode)

    def flush(self, path, fh):
        return 0

    def fsync(self, path, datasync, fh):
        os.fsync(fh)

    def fsyncdir(self, path, datasync, fh):
        fd = os.open(self.real(path), os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def getattr(self, path, fh=None):
        st = os.lstat(self.real(path))
        keys = ("st_mode", "st_ino", "st_nlink", "st_uid", "st_gid", "st_size", "st_atime", "st_mtime", "st_ctime")
        result = {key: getattr(st, key) for key in keys}
        for key in ("st_atime", "st_mtime", "st_ctime"):
            result[key] = getattr(st, key + "_ns") / 1e9
        return result

    def getxattr(self, path, name, position=0):
        return os.getxattr(self.real(path), name, follow_symlinks=False)

    def link(self, target, source):
        os.link(self.real(source), self.real(target))

    def listxattr(self, path):
        return os.listxattr(self.real(path), follow_symlinks=False)

    def mkdir(self, path, mode):
        os.mkdir(self.real(path), mode)

    def open(self, path, flags):
        return os.open(self.real(path), flags & ~(os.O_CREAT | os.O_EXCL))

    def read(self, path, size, offset, fh):
        return os.pread(fh, size, offset)

    def readdir(self, path, fh):
        entries = [(".", None, 0), ("..", None, 0)]
        with os.scandir(self.real(path)) as scan:
            for entry in scan:
                st = entry.stat(follow_symlinks=False)
                entries.append((entry.name, {"st_ino": st.st_ino, "st_mode": st.st_mode}, 0))
        return entries

    def readlink(self, path):
        return os.readlink(self.real(path))

    def release(self, path, fh):
        os.close(fh)

    def removexattr(self, path, name):
        os.removexattr(self.real(path), name, follow_symlinks=False)

    def rename(self, old, new):
        os.rename(self.real(old), self.real(new))

    def rmdir(self, path):
        os.rmdir(self.real(path))

    def setxattr(self, path, name, value, options, position=0):
        os.setxattr(self.real(path), name, value, options, follow_symlinks=False)

    def statfs(self, path):
        st = os.statvfs(self.real(path))
        keys = ("f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail", "f_ffree", "f_files", "f_flag", "f_frsize", "f_namemax")
        return {key: getattr(st, key) for key in keys}

    def symlink(self, target, source):
        os.symlink(source, self.real(target))

    def truncate(self, path, length, fh=None):
        if fh is not None:
            os.ftruncate(fh, length)
        else:
            os.truncate(self.real(path), length)

    def unlink(self, path):
        os.unlink(self.real(path))

    def utimens(self, path, times=None):
        os.utime(self.real(path), times, follow_symlinks=False)

    def write(self, path, data, offset, fh):
        return os.pwrite(fh, data, offset)


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: faultfs.py SOURCE MOUNTPOINT CONTROL LOG")
    source, mountpoint, control, log = sys.argv[1:]
    FUSE(
        FaultFS(source, control, log), mountpoint, foreground=True, nothreads=True, use_ino=True,
        attr_timeout=0, entry_timeout=0, negative_timeout=0, hard_remove=True, fsname="faultfs")


if __name__ == "__main__":
    main()
