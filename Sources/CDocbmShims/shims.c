#ifndef _GNU_SOURCE
#error "CDocbmShims must be compiled with _GNU_SOURCE (set in Package.swift)"
#endif

#include "CDocbmShims.h"

#include <attr/error_context.h>
#include <dirent.h>
#include <attr/libattr.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <unistd.h>

const uint32_t CDOCBM_STATX_BTIME = STATX_BTIME;
#ifdef STATX_MNT_ID
const uint32_t CDOCBM_STATX_MNT_ID = STATX_MNT_ID;
#else
const uint32_t CDOCBM_STATX_MNT_ID = 0x00001000U;
#endif
#ifdef STATX_ATTR_MOUNT_ROOT
const uint64_t CDOCBM_STATX_ATTR_MOUNT_ROOT = STATX_ATTR_MOUNT_ROOT;
#else
const uint64_t CDOCBM_STATX_ATTR_MOUNT_ROOT = 0x00002000ULL;
#endif
const int CDOCBM_AT_EMPTY_PATH = AT_EMPTY_PATH;
const int CDOCBM_AT_SYMLINK_NOFOLLOW = AT_SYMLINK_NOFOLLOW;
const int CDOCBM_AT_SYMLINK_FOLLOW = AT_SYMLINK_FOLLOW;
const int CDOCBM_XATTR_CREATE = XATTR_CREATE;
const int CDOCBM_MAX_HANDLE_SZ = MAX_HANDLE_SZ;
const unsigned int CDOCBM_RENAME_EXCHANGE = RENAME_EXCHANGE;
const unsigned int CDOCBM_RENAME_NOREPLACE = RENAME_NOREPLACE;
const int CDOCBM_O_PATH = O_PATH;
const int CDOCBM_O_NOATIME = O_NOATIME;
const int CDOCBM_O_TMPFILE = O_TMPFILE;

_Static_assert(sizeof(uint64_t) == 8, "uint64_t");

int cdocbm_statx(int dirfd, const char *path, int flags, cdocbm_file_status *out) {
  struct statx sx;
  unsigned int want = STATX_BASIC_STATS | STATX_BTIME | CDOCBM_STATX_MNT_ID;
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
  if (sx.stx_mask & CDOCBM_STATX_MNT_ID) {
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

int cdocbm_name_to_handle_at(int dirfd, const char *path, int flags, unsigned char *bytes,
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

int cdocbm_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
                    unsigned int flags) {
  return (int)syscall(SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, flags);
}

int cdocbm_inode_generation(int fd, uint32_t *generation) {
  int value = 0;
  if (ioctl(fd, FS_IOC_GETVERSION, &value) != 0) {
    return -1;
  }
  *generation = (uint32_t)value;
  return 0;
}

const uint32_t CDOCBM_FS_IMMUTABLE_FL = FS_IMMUTABLE_FL;
const uint32_t CDOCBM_FS_APPEND_FL = FS_APPEND_FL;

int cdocbm_inode_flags(int fd, uint32_t *flags) {
  // The kernel reads and writes an int, whatever the ioctl's declared type says.
  int value = 0;
  if (ioctl(fd, FS_IOC_GETFLAGS, &value) != 0) {
    return -1;
  }
  *flags = (uint32_t)value;
  return 0;
}

int cdocbm_set_inode_flags(int fd, uint32_t flags) {
  int value = (int)flags;
  return ioctl(fd, FS_IOC_SETFLAGS, &value);
}

const int CDOCBM_CAP_CHOWN = CAP_CHOWN;

int cdocbm_unshare_mount_namespace(void) {
  if (unshare(CLONE_NEWNS) != 0) {
    return -1;
  }
  return mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 ? 0 : -2;
}

int cdocbm_has_effective_capability(int capability) {
  if (capability < 0 || capability >= 64) {
    errno = EINVAL;
    return -1;
  }
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
  memset(data, 0, sizeof(data));
  if (syscall(SYS_capget, &header, data) != 0) {
    return -1;
  }
  return (data[capability / 32].effective >> (capability % 32)) & 1U ? 1 : 0;
}

int cdocbm_filesystem_id(int fd, uint64_t *fsid, int64_t *fstype) {
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

int cdocbm_path_filesystem_type(const char *path, int64_t *fstype) {
  struct statfs sf;
  if (statfs(path, &sf) != 0) {
    return -1;
  }
  *fstype = (int64_t)sf.f_type;
  return 0;
}

ssize_t cdocbm_fgetxattr(int fd, const char *name, void *value, size_t size) {
  return fgetxattr(fd, name, value, size);
}
ssize_t cdocbm_getxattr(const char *path, const char *name, void *value, size_t size) {
  return getxattr(path, name, value, size);
}
ssize_t cdocbm_lgetxattr(const char *path, const char *name, void *value, size_t size) {
  return lgetxattr(path, name, value, size);
}
int cdocbm_fsetxattr(int fd, const char *name, const void *value, size_t size, int flags) {
  return fsetxattr(fd, name, value, size, flags);
}
int cdocbm_lsetxattr(const char *path, const char *name, const void *value, size_t size,
                    int flags) {
  return lsetxattr(path, name, value, size, flags);
}
ssize_t cdocbm_flistxattr(int fd, char *list, size_t size) { return flistxattr(fd, list, size); }
ssize_t cdocbm_llistxattr(const char *path, char *list, size_t size) {
  return llistxattr(path, list, size);
}
int cdocbm_setxattr(const char *path, const char *name, const void *value, size_t size, int flags) {
  return setxattr(path, name, value, size, flags);
}
ssize_t cdocbm_listxattr(const char *path, char *list, size_t size) { return listxattr(path, list, size); }
int cdocbm_removexattr(const char *path, const char *name) { return removexattr(path, name); }
int cdocbm_fremovexattr(int fd, const char *name) { return fremovexattr(fd, name); }
int cdocbm_lremovexattr(const char *path, const char *name) { return lremovexattr(path, name); }

const int CDOCBM_LOCK_EX = LOCK_EX;
const int CDOCBM_LOCK_NB = LOCK_NB;

int cdocbm_flock(int fd, int operation) { return flock(fd, operation); }

int cdocbm_name_current_thread(const char *name) { return pthread_setname_np(pthread_self(), name); }

int cdocbm_usable_processor_count(void) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int)online : 1;
  }
  int count = CPU_COUNT(&set);
  return count > 0 ? count : 1;
}

int cdocbm_start_detached_thread(void *(*entry)(void *), void *context) {
  pthread_attr_t attributes;
  int result = pthread_attr_init(&attributes);
  if (result != 0) {
    return result;
  }
  pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
  pthread_t thread;
  result = pthread_create(&thread, &attributes, entry, context);
  pthread_attr_destroy(&attributes);
  return result;
}

static __thread unsigned cdocbm_thread_tag;

unsigned cdocbm_current_thread_tag(void) { return cdocbm_thread_tag; }

void cdocbm_set_current_thread_tag(unsigned tag) { cdocbm_thread_tag = tag; }

ptrdiff_t cdocbm_find_bytes(const void *haystack, size_t haystack_length, const void *needle,
                           size_t needle_length, size_t key_index) {
  if (needle_length == 0) {
    return 0;
  }
  if (needle_length > haystack_length || key_index >= needle_length) {
    return -1;
  }
  const unsigned char *base = haystack;
  const unsigned char *pattern = needle;
  const unsigned char key = pattern[key_index];
  const unsigned char *position = base + key_index;
  const unsigned char *last = base + (haystack_length - needle_length) + key_index;
  while (position <= last) {
    const unsigned char *found = memchr(position, key, (size_t)(last - position) + 1);
    if (found == NULL) {
      return -1;
    }
    if (memcmp(found - key_index, pattern, needle_length) == 0) {
      return (found - key_index) - base;
    }
    position = found + 1;
  }
  return -1;
}

ssize_t cdocbm_read_directory(int fd, void *buffer, size_t size, int rewind) {
  if (rewind && lseek(fd, 0, SEEK_SET) < 0) {
    return -1;
  }
  return getdents64(fd, buffer, size);
}

/// libattr reports through a variadic callback, which Swift cannot implement; this one
/// collects the messages in a caller's buffer.
struct cdocbm_error_sink {
  struct error_context context; /* first, so the context pointer is the sink's */
  char *buffer;
  size_t capacity;
  size_t length;
  int first_errno; /* the errno of the first failure noted, 0 when none */
};

static void cdocbm_collect_error(struct error_context *context, const char *format, ...) {
  struct cdocbm_error_sink *sink = (struct cdocbm_error_sink *)context;
  int saved = errno;
  if (sink->buffer == NULL || sink->capacity == 0 || sink->length + 1 >= sink->capacity) {
    return;
  }
  if (sink->length > 0) {
    int n = snprintf(sink->buffer + sink->length, sink->capacity - sink->length, "; ");
    if (n > 0) sink->length += (size_t)n;
  }
  if (sink->length + 1 >= sink->capacity) return;
  va_list arguments;
  va_start(arguments, format);
  int n = vsnprintf(sink->buffer + sink->length, sink->capacity - sink->length, format, arguments);
  va_end(arguments);
  if (n > 0) sink->length += (size_t)n;
  if (sink->length >= sink->capacity) sink->length = sink->capacity - 1;
  if (saved != 0 && sink->length + 1 < sink->capacity) {
    n = snprintf(sink->buffer + sink->length, sink->capacity - sink->length, ": %s", strerror(saved));
    if (n > 0) sink->length += (size_t)n;
    if (sink->length >= sink->capacity) sink->length = sink->capacity - 1;
  }
  errno = saved;
}

static const char *cdocbm_quote(struct error_context *context, const char *name) {
  (void)context;
  return name;
}

static void cdocbm_quote_free(struct error_context *context, const char *name) {
  (void)context;
  (void)name;
}

/* An empty sink that collects libattr's messages into `messages`. */
static void cdocbm_sink_init(struct cdocbm_error_sink *sink, char *messages, size_t capacity) {
  sink->context.error = cdocbm_collect_error;
  sink->context.quote = cdocbm_quote;
  sink->context.quote_free = cdocbm_quote_free;
  sink->buffer = messages;
  sink->capacity = capacity;
  sink->length = 0;
  sink->first_errno = 0;
  if (messages && capacity > 0) messages[0] = 0;
}

int cdocbm_attr_copy_fd(const char *src_path, int src_fd, const char *dst_path, int dst_fd,
                       char *messages, size_t capacity) {
  struct cdocbm_error_sink sink;
  cdocbm_sink_init(&sink, messages, capacity);
  int result = attr_copy_fd(src_path, src_fd, dst_path, dst_fd, NULL, &sink.context);
  if (messages && capacity > 0) messages[sink.length < capacity ? sink.length : capacity - 1] = 0;
  return result == 0 && sink.length == 0 ? 0 : -1;
}

/* Appends "name: strerror(errno)" to the sink, as libattr's own messages read. */
static void cdocbm_note_failure(struct cdocbm_error_sink *sink, const char *what, const char *name) {
  if (sink->first_errno == 0) sink->first_errno = errno;
  cdocbm_collect_error(&sink->context, "%s %s", what, name);
}

/* One attribute's value into `*value` (a caller's stack buffer at first, grown on the heap
 * when a value does not fit); the length, or -1 with errno. */
static ssize_t cdocbm_read_value(int fd, const char *name, char **value, size_t *capacity,
                                char *stack_buffer) {
  for (int attempt = 0; attempt < 8; attempt++) {
    ssize_t length = fgetxattr(fd, name, *value, *capacity);
    if (length >= 0) return length;
    if (errno == EINTR) continue;
    if (errno != ERANGE) return -1;
    ssize_t needed = fgetxattr(fd, name, NULL, 0);
    if (needed < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    size_t grown = (size_t)needed + 256;
    char *bigger = (*value == stack_buffer) ? malloc(grown) : realloc(*value, grown);
    if (bigger == NULL) {
      errno = ENOMEM;
      return -1;
    }
    *value = bigger;
    *capacity = grown;
  }
  errno = ERANGE;
  return -1;
}

int cdocbm_copy_attributes(int src_fd, int dst_fd, const char *key_name, int carry_key,
                          void *key_value, size_t key_capacity, ssize_t *key_length,
                          int *acl_names, char *messages, size_t capacity,
                          int *failure_errno) {
  struct cdocbm_error_sink sink;
  cdocbm_sink_init(&sink, messages, capacity);
  *failure_errno = 0;
  *key_length = -1;
  *acl_names = 0;

  char list_stack[4096];
  char *list = list_stack;
  size_t list_capacity = sizeof(list_stack);
  ssize_t list_length;
  for (;;) {
    list_length = flistxattr(src_fd, list, list_capacity);
    if (list_length >= 0) break;
    if (errno == EINTR) continue;
    if (errno == ENOTSUP || errno == ENOSYS) {
      if (list != list_stack) free(list);
      return 0; /* nothing to copy from a filesystem without attributes */
    }
    if (errno != ERANGE) {
      cdocbm_note_failure(&sink, "listing attributes of", "the document");
      if (list != list_stack) free(list);
      *failure_errno = sink.first_errno;
      return -1;
    }
    ssize_t needed = flistxattr(src_fd, NULL, 0);
    if (needed < 0) continue;
    size_t grown = (size_t)needed + 256;
    char *bigger = (list == list_stack) ? malloc(grown) : realloc(list, grown);
    if (bigger == NULL) {
      errno = ENOMEM;
      cdocbm_note_failure(&sink, "listing attributes of", "the document");
      if (list != list_stack) free(list);
      *failure_errno = sink.first_errno;
      return -1;
    }
    list = bigger;
    list_capacity = grown;
  }

  char value_stack[4096];
  char *value = value_stack;
  size_t value_capacity = sizeof(value_stack);
  for (ssize_t offset = 0; offset < list_length;) {
    const char *name = list + offset;
    size_t name_length = strnlen(name, (size_t)(list_length - offset));
    offset += (ssize_t)name_length + 1;
    if (name_length == 0) continue;
    int is_key = strcmp(name, key_name) == 0;
    if (strcmp(name, "system.posix_acl_access") == 0) *acl_names |= 1;
    if (strcmp(name, "system.posix_acl_default") == 0) *acl_names |= 2;
    if (is_key) {
      /* The key is carried or left out whatever /etc/xattr.conf says. */
      if (!carry_key) continue;
    } else {
      int action = attr_copy_action(name, &sink.context);
      if (action == ATTR_ACTION_SKIP || action == ATTR_ACTION_PERMISSIONS) continue;
    }
    ssize_t length = cdocbm_read_value(src_fd, name, &value, &value_capacity, value_stack);
    if (length < 0) {
      if (errno == ENODATA) continue; /* removed since it was listed */
      cdocbm_note_failure(&sink, "getting attribute", name);
      continue;
    }
    int set;
    do {
      set = fsetxattr(dst_fd, name, value, (size_t)length, 0);
    } while (set != 0 && errno == EINTR);
    if (set != 0) {
      cdocbm_note_failure(&sink, "setting attribute", name);
      continue;
    }
    if (is_key && (size_t)length <= key_capacity) {
      memcpy(key_value, value, (size_t)length);
      *key_length = length;
    }
  }
  if (value != value_stack) free(value);
  if (list != list_stack) free(list);
  if (messages && capacity > 0) messages[sink.length < capacity ? sink.length : capacity - 1] = 0;
  *failure_errno = sink.first_errno;
  return sink.length == 0 ? 0 : -1;
}

int cdocbm_event_counter(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }
