#ifndef _GNU_SOURCE
#error "CDocbmShims must be compiled with _GNU_SOURCE (set in Package.swift)"
#endif

#include "CDocbmShims.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <unistd.h>

const uint32_t DOCBM_STATX_BTIME = STATX_BTIME;
#ifdef STATX_MNT_ID
const uint32_t DOCBM_STATX_MNT_ID = STATX_MNT_ID;
#else
const uint32_t DOCBM_STATX_MNT_ID = 0x00001000U;
#endif
const uint64_t DOCBM_STATX_ATTR_IMMUTABLE = STATX_ATTR_IMMUTABLE;
const uint64_t DOCBM_STATX_ATTR_APPEND = STATX_ATTR_APPEND;
#ifdef STATX_ATTR_MOUNT_ROOT
const uint64_t DOCBM_STATX_ATTR_MOUNT_ROOT = STATX_ATTR_MOUNT_ROOT;
#else
const uint64_t DOCBM_STATX_ATTR_MOUNT_ROOT = 0x00002000ULL;
#endif
const int DOCBM_AT_EMPTY_PATH = AT_EMPTY_PATH;
const int DOCBM_AT_SYMLINK_NOFOLLOW = AT_SYMLINK_NOFOLLOW;
const int DOCBM_AT_SYMLINK_FOLLOW = AT_SYMLINK_FOLLOW;
const int DOCBM_XATTR_CREATE = XATTR_CREATE;
const int DOCBM_XATTR_REPLACE = XATTR_REPLACE;
const int DOCBM_MAX_HANDLE_SZ = MAX_HANDLE_SZ;
const unsigned int DOCBM_RENAME_EXCHANGE = RENAME_EXCHANGE;
const unsigned int DOCBM_RENAME_NOREPLACE = RENAME_NOREPLACE;
const int DOCBM_O_TMPFILE = O_TMPFILE;
const int DOCBM_O_PATH = O_PATH;

_Static_assert(sizeof(uint64_t) == 8, "uint64_t");

int docbm_statx(int dirfd, const char *path, int flags, docbm_file_status *out) {
  struct statx sx;
  unsigned int want = STATX_BASIC_STATS | STATX_BTIME | DOCBM_STATX_MNT_ID;
  if (statx(dirfd, path, flags | AT_STATX_SYNC_AS_STAT, want, &sx) != 0) {
    return -1;
  }
  memset(out, 0, sizeof(*out));
  out->mask = sx.stx_mask;
  out->mode = sx.stx_mode;
  out->nlink = sx.stx_nlink;
  out->uid = sx.stx_uid;
  out->gid = sx.stx_gid;
  out->dev_major = sx.stx_dev_major;
  out->dev_minor = sx.stx_dev_minor;
  out->ino = sx.stx_ino;
  out->size = sx.stx_size;
  out->attributes = sx.stx_attributes;
  out->attributes_mask = sx.stx_attributes_mask;
  if (sx.stx_mask & DOCBM_STATX_MNT_ID) {
    out->mnt_id = sx.stx_mnt_id;
  }
  if (sx.stx_mask & STATX_BTIME) {
    out->btime_sec = sx.stx_btime.tv_sec;
    out->btime_nsec = sx.stx_btime.tv_nsec;
  }
  out->mtime_sec = sx.stx_mtime.tv_sec;
  out->mtime_nsec = sx.stx_mtime.tv_nsec;
  out->ctime_sec = sx.stx_ctime.tv_sec;
  out->ctime_nsec = sx.stx_ctime.tv_nsec;
  return 0;
}

int docbm_name_to_handle_at(int dirfd, const char *path, int flags, unsigned char *bytes,
                            size_t capacity, size_t *length, int *handle_type, int *mount_id) {
  union {
    struct file_handle handle;
    unsigned char storage[sizeof(struct file_handle) + MAX_HANDLE_SZ];
  } buffer;
  buffer.handle.handle_bytes = MAX_HANDLE_SZ;
  if (name_to_handle_at(dirfd, path, &buffer.handle, mount_id, flags) != 0) {
    return -1;
  }
  if (buffer.handle.handle_bytes > capacity) {
    errno = EOVERFLOW;
    return -1;
  }
  memcpy(bytes, buffer.handle.f_handle, buffer.handle.handle_bytes);
  *length = buffer.handle.handle_bytes;
  *handle_type = buffer.handle.handle_type;
  return 0;
}

int docbm_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
                    unsigned int flags) {
  return (int)syscall(SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, flags);
}

int docbm_inode_generation(int fd, uint32_t *generation) {
  int value = 0;
  if (ioctl(fd, FS_IOC_GETVERSION, &value) != 0) {
    return -1;
  }
  *generation = (uint32_t)value;
  return 0;
}

int docbm_filesystem_id(int fd, uint64_t *fsid, int64_t *fstype) {
  struct statfs sf;
  if (fstatfs(fd, &sf) != 0) {
    return -1;
  }
  uint32_t low = (uint32_t)sf.f_fsid.__val[0];
  uint32_t high = (uint32_t)sf.f_fsid.__val[1];
  *fsid = ((uint64_t)high << 32) | low;
  *fstype = (int64_t)sf.f_type;
  return 0;
}

ssize_t docbm_fgetxattr(int fd, const char *name, void *value, size_t size) {
  return fgetxattr(fd, name, value, size);
}
ssize_t docbm_getxattr(const char *path, const char *name, void *value, size_t size) {
  return getxattr(path, name, value, size);
}
ssize_t docbm_lgetxattr(const char *path, const char *name, void *value, size_t size) {
  return lgetxattr(path, name, value, size);
}
int docbm_fsetxattr(int fd, const char *name, const void *value, size_t size, int flags) {
  return fsetxattr(fd, name, value, size, flags);
}
int docbm_lsetxattr(const char *path, const char *name, const void *value, size_t size,
                    int flags) {
  return lsetxattr(path, name, value, size, flags);
}
ssize_t docbm_flistxattr(int fd, char *list, size_t size) { return flistxattr(fd, list, size); }
ssize_t docbm_llistxattr(const char *path, char *list, size_t size) {
  return llistxattr(path, list, size);
}
int docbm_fremovexattr(int fd, const char *name) { return fremovexattr(fd, name); }
int docbm_lremovexattr(const char *path, const char *name) { return lremovexattr(path, name); }
