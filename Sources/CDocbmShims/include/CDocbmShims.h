// C shim for what Glibc's Swift module does not expose: extended attributes, statx,
// file handles, renameat2, the generation and inode-flags ioctls, statfs's filesystem id, the
// caller's capabilities, an event counter (eventfd), and a byte search.
// Every function returns -1 and sets errno on failure, like the call it wraps (the byte
// search returns -1 for "not found").
#ifndef CDOCBM_SHIMS_H
#define CDOCBM_SHIMS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/// What docbm reads from statx(2). Fields whose bit is clear in `mask` are zero.
typedef struct cdocbm_file_status {
  uint32_t mask;
  uint32_t mode;
  uint32_t nlink;
  uint32_t uid;
  uint32_t gid;
  uint32_t dev_major;
  uint32_t dev_minor;
  uint64_t ino;
  uint64_t size;
  uint64_t attributes;
  uint64_t attributes_mask;
  uint64_t mnt_id;
  int64_t btime_sec;
  uint32_t btime_nsec;
  int64_t mtime_sec;
  uint32_t mtime_nsec;
  int64_t ctime_sec;
  uint32_t ctime_nsec;
} cdocbm_file_status;

extern const uint32_t CDOCBM_STATX_BTIME;
extern const uint32_t CDOCBM_STATX_MNT_ID;
extern const uint64_t CDOCBM_STATX_ATTR_MOUNT_ROOT;
extern const int CDOCBM_AT_EMPTY_PATH;
extern const int CDOCBM_AT_SYMLINK_NOFOLLOW;
extern const int CDOCBM_AT_SYMLINK_FOLLOW;
extern const int CDOCBM_XATTR_CREATE;
extern const int CDOCBM_MAX_HANDLE_SZ;
extern const unsigned int CDOCBM_RENAME_EXCHANGE;
extern const unsigned int CDOCBM_RENAME_NOREPLACE;
extern const int CDOCBM_O_PATH;
extern const int CDOCBM_O_NOATIME;
extern const int CDOCBM_O_TMPFILE;

int cdocbm_statx(int dirfd, const char *path, int flags, cdocbm_file_status *out);

int cdocbm_name_to_handle_at(int dirfd, const char *path, int flags, unsigned char *bytes,
                            size_t capacity, size_t *length, int *handle_type, int *mount_id);

int cdocbm_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
                    unsigned int flags);

/// The inode generation (FS_IOC_GETVERSION), where the filesystem keeps one.
int cdocbm_inode_generation(int fd, uint32_t *generation);

/// The inode flags (FS_IOC_GETFLAGS, what lsattr shows), where the filesystem keeps them.
int cdocbm_inode_flags(int fd, uint32_t *flags);
/// Sets the inode flags (FS_IOC_SETFLAGS); clearing immutable or append-only needs
/// CAP_LINUX_IMMUTABLE. Returns 0, or -1 with errno.
int cdocbm_set_inode_flags(int fd, uint32_t flags);
extern const uint32_t CDOCBM_FS_IMMUTABLE_FL;
extern const uint32_t CDOCBM_FS_APPEND_FL;

/// Whether the calling thread has `capability` (CAP_CHOWN, …) in its effective set: 1 or 0,
/// or -1 with errno set when capget(2) fails.
int cdocbm_has_effective_capability(int capability);
extern const int CDOCBM_CAP_CHOWN;

/// Gives the calling thread a mount namespace of its own (unshare(2) with CLONE_NEWNS,
/// which also gives it its own root, working folder and umask) and makes every mount in it
/// private (mount(2) with MS_REC | MS_PRIVATE on "/"), so mounts made from this thread, or
/// by processes it starts, are invisible to the rest of the system and vanish with the
/// thread. Needs CAP_SYS_ADMIN. Returns 0; -1 with errno when unshare failed (the thread
/// is as it was); -2 with errno when mount failed (the thread has its own namespace, whose
/// mounts may still propagate).
int cdocbm_unshare_mount_namespace(void);

/// statfs(2)'s f_fsid packed into 64 bits, and f_type.
int cdocbm_filesystem_id(int fd, uint64_t *fsid, int64_t *fstype);

/// statfs(2)'s f_type of the filesystem holding path (a final symbolic link followed).
int cdocbm_path_filesystem_type(const char *path, int64_t *fstype);

ssize_t cdocbm_fgetxattr(int fd, const char *name, void *value, size_t size);
ssize_t cdocbm_getxattr(const char *path, const char *name, void *value, size_t size);
ssize_t cdocbm_lgetxattr(const char *path, const char *name, void *value, size_t size);
int cdocbm_fsetxattr(int fd, const char *name, const void *value, size_t size, int flags);
int cdocbm_lsetxattr(const char *path, const char *name, const void *value, size_t size,
                    int flags);
ssize_t cdocbm_flistxattr(int fd, char *list, size_t size);
ssize_t cdocbm_llistxattr(const char *path, char *list, size_t size);
int cdocbm_setxattr(const char *path, const char *name, const void *value, size_t size, int flags);
ssize_t cdocbm_listxattr(const char *path, char *list, size_t size);
int cdocbm_removexattr(const char *path, const char *name);
int cdocbm_fremovexattr(int fd, const char *name);
int cdocbm_lremovexattr(const char *path, const char *name);

/// Copies every extended attribute of `src_fd` to `dst_fd` with libattr's attr_copy_fd (the
/// benchmark's minimal durable sequence uses it; saves use cdocbm_copy_attributes),
/// honouring /etc/xattr.conf (names marked `skip` and `permissions`, i.e. ACLs, are left
/// out). Messages for the names that failed are written to `messages` ("; "-separated,
/// each with its strerror); returns 0 when everything was copied, -1 otherwise.
int cdocbm_attr_copy_fd(const char *src_path, int src_fd, const char *dst_path, int dst_fd,
                       char *messages, size_t capacity);

/// Copies the extended attributes of `src_fd` to `dst_fd` as cdocbm_attr_copy_fd does
/// (names /etc/xattr.conf marks `skip` or `permissions` are left out, through libattr's
/// attr_copy_action), with one flistxattr and one fgetxattr per name into a reused buffer
/// (no size probe unless a value is larger than 4 KiB). The attribute `key_name` is copied
/// when `carry_key` is non-zero and left out otherwise, whatever the configuration says; a
/// copied key's value goes to `key_value` and its length to `*key_length` (-1 when the key
/// was not copied: absent, left out, or its copy failed). `*acl_names` gets bit 1 when the
/// source lists system.posix_acl_access, bit 2 for system.posix_acl_default. Returns 0
/// when every name was copied, -1 otherwise, with messages as cdocbm_attr_copy_fd writes and
/// the errno of the first failure in `*failure_errno` (0 when none).
int cdocbm_copy_attributes(int src_fd, int dst_fd, const char *key_name, int carry_key,
                          void *key_value, size_t key_capacity, ssize_t *key_length,
                          int *acl_names, char *messages, size_t capacity,
                          int *failure_errno);

/// getdents64(2) from the start of an open folder: rewinds `fd`, then fills `buffer` with
/// `struct linux_dirent64` records; call again (with `rewind` 0) until it returns 0.
ssize_t cdocbm_read_directory(int fd, void *buffer, size_t size, int rewind);

/// flock(2) on a descriptor (folders included).
int cdocbm_flock(int fd, int operation);

/// Names the calling thread in the kernel (pthread_setname_np: what ps, top and debuggers
/// show; at most 15 bytes are kept). Returns 0, or an errno value.
int cdocbm_name_current_thread(const char *name);

/// How many processors the calling thread may run on (its affinity mask, as `taskset` or
/// a container sets it); at least 1.
int cdocbm_usable_processor_count(void);

/// Starts a detached thread running `entry(context)`. Returns 0 or an errno value
/// (EAGAIN: the thread limit).
int cdocbm_start_detached_thread(void *(*entry)(void *), void *context);

/// The calling thread's word (0 until set): docbm's one per-thread value, what
/// `CurrentThread` keeps about the thread.
unsigned cdocbm_current_thread_tag(void);

/// Sets the calling thread's word.
void cdocbm_set_current_thread_tag(unsigned tag);
extern const int CDOCBM_LOCK_EX;
extern const int CDOCBM_LOCK_NB;

/// The index of the first occurrence of `needle` in `haystack`, or -1 when there is none
/// (errno is not set). memchr(3) looks for `needle[key_index]`, which the caller picks
/// rare in the data, and memcmp(3) checks each hit: many times faster than glibc's memmem
/// on zeros and text, since memchr is vectorized.
ptrdiff_t cdocbm_find_bytes(const void *haystack, size_t haystack_length, const void *needle,
                           size_t needle_length, size_t key_index);


/// eventfd(2) with EFD_CLOEXEC | EFD_NONBLOCK, counting from zero: a descriptor one thread
/// writes to wake another polling it.
int cdocbm_event_counter(void);

#endif
