/* The floor under `docbm check --recursive TREE` on one core: what a careful C author makes
 * the same calls for. It checks the escrow folder the way docbm trusts it and reads the
 * escrow records of the tree (one range of paths, in one read transaction), then walks the
 * tree depth first in name order, opening each regular file by name in its open folder.
 * For each file it reads the key attribute (checking its fingerprint, a keyed BLAKE2b hash
 * as docbm's), reads the bytes and finds the bookmarks' text forms, and for each bookmark
 * checks the header and the MAC (HMAC-SHA-256) with the document's key, or, when the key
 * is gone, with the escrowed key its fingerprint names (a prepared look-up by fingerprint),
 * then looks the target up by its absolute path (`statx`) and compares its inode. It prints
 * one line per document that is not `ok`, and exits 2 when a key was lost, as docbm does.
 * Build: cc -O2 check.c $(pkg-config --cflags --libs sqlite3 libsodium). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "escrow.h"

typedef struct {
  unsigned char key[32];
  unsigned char fingerprint[8];
  int present;
} Key;

/* One escrow record of the tree: a document's real path and its key's fingerprint. */
typedef struct {
  char *path;
  char fingerprint[20];
} Record;

static Record *records;
static size_t record_count, record_capacity;
static sqlite3 *escrow;
static sqlite3_stmt *key_by_fingerprint;
static int lost_keys;

static int compare_records(const void *a, const void *b) {
  return strcmp(((const Record *)a)->path, ((const Record *)b)->path);
}

static const Record *record_of(const char *path) {
  Record wanted = {.path = (char *)path};
  return record_count ? bsearch(&wanted, records, record_count, sizeof *records, compare_records) : NULL;
}

static void fingerprint_of(const unsigned char key[32], unsigned char out[8]) {
  static const char context[] = "docbm.key-fingerprint.v1";
  unsigned char hash[16];
  crypto_generichash(hash, sizeof hash, (const unsigned char *)context, sizeof context - 1, key, 32);
  memcpy(out, hash, 8);
}

static void print_fingerprint(const unsigned char fingerprint[8], char out[20]) {
  snprintf(out, 20, "%02x%02x%02x%02x-%02x%02x%02x%02x", fingerprint[0], fingerprint[1], fingerprint[2],
           fingerprint[3], fingerprint[4], fingerprint[5], fingerprint[6], fingerprint[7]);
}

/* Opens the escrow read-only when its folder and file are trusted and reads the records of
 * the paths under `root` (a real path). No escrow is no records. */
static void read_escrow(const char *root) {
  const char *folder = getenv("DOCBM_ESCROW_DIR");
  const char *problem = "";
  if (!folder || !(escrow = open_trusted_escrow(folder, &problem))) return;
  sqlite3_exec(escrow, "BEGIN", NULL, NULL, NULL);
  /* Paths under `root/`: from "root/" up to (not including) "root0", '0' following '/'. */
  char low[PATH_MAX + 1], high[PATH_MAX + 1];
  snprintf(low, sizeof low, "%s/", strcmp(root, "/") ? root : "");
  snprintf(high, sizeof high, "%s0", strcmp(root, "/") ? root : "");
  sqlite3_stmt *range;
  if (sqlite3_prepare_v2(escrow, "SELECT path, fingerprint FROM documents WHERE path >= ?1 AND path < ?2", -1,
                         &range, NULL) == SQLITE_OK) {
    sqlite3_bind_blob(range, 1, low, (int)strlen(low), SQLITE_STATIC);
    sqlite3_bind_blob(range, 2, high, (int)strlen(high), SQLITE_STATIC);
    while (sqlite3_step(range) == SQLITE_ROW) {
      if (record_count == record_capacity) {
        record_capacity = record_capacity ? record_capacity * 2 : 1024;
        records = realloc(records, record_capacity * sizeof *records);
      }
      Record *record = &records[record_count++];
      record->path = strndup(sqlite3_column_blob(range, 0), (size_t)sqlite3_column_bytes(range, 0));
      snprintf(record->fingerprint, sizeof record->fingerprint, "%s", sqlite3_column_text(range, 1));
    }
    sqlite3_finalize(range);
  }
  qsort(records, record_count, sizeof *records, compare_records);
  sqlite3_prepare_v2(escrow, "SELECT key FROM keys WHERE fingerprint = ?1", -1, &key_by_fingerprint, NULL);
}

/* The escrowed key with `fingerprint`. */
static int escrowed_key(const unsigned char fingerprint[8], Key *key) {
  if (!key_by_fingerprint) return 0;
  char printed[20];
  print_fingerprint(fingerprint, printed);
  sqlite3_bind_text(key_by_fingerprint, 1, printed, -1, SQLITE_STATIC);
  int found = 0;
  if (sqlite3_step(key_by_fingerprint) == SQLITE_ROW && sqlite3_column_bytes(key_by_fingerprint, 0) == 32) {
    memcpy(key->key, sqlite3_column_blob(key_by_fingerprint, 0), 32);
    memcpy(key->fingerprint, fingerprint, 8);
    key->present = found = 1;
  }
  sqlite3_reset(key_by_fingerprint);
  return found;
}

static int base64url_value(unsigned char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

/* Decodes `count` bytes from the text at `text` (at most `available` characters). */
static int decode(const unsigned char *text, size_t available, unsigned char *out, size_t count) {
  size_t needed = (count * 4 + 2) / 3;
  if (needed > available) return 0;
  uint32_t bits = 0;
  int held = 0;
  size_t written = 0;
  for (size_t i = 0; i < needed && written < count; i++) {
    int value = base64url_value(text[i]);
    if (value < 0) return 0;
    bits = (bits << 6) | (uint32_t)value;
    held += 6;
    if (held >= 8) {
      held -= 8;
      out[written++] = (unsigned char)(bits >> held);
    }
  }
  return written == count;
}

typedef enum { BOOKMARK_OK, BOOKMARK_MOVED, BOOKMARK_UNVERIFIED } Outcome;

/* Verifies the record in `bytes` (`length` of them) with `key` and looks its target up. */
static Outcome check_bookmark(const unsigned char *bytes, size_t length, const Key *key) {
  if (!key->present || memcmp(bytes + 10, key->fingerprint, 8) != 0) return BOOKMARK_UNVERIFIED;
  static const unsigned char context[18] = "docbm.bookmark.v1";
  unsigned char mac[crypto_auth_hmacsha256_BYTES];
  crypto_auth_hmacsha256_state state;
  crypto_auth_hmacsha256_init(&state, key->key, 32);
  crypto_auth_hmacsha256_update(&state, context, sizeof context);
  crypto_auth_hmacsha256_update(&state, bytes, length - 16);
  crypto_auth_hmacsha256_final(&state, mac);
  if (sodium_memcmp(mac, bytes + length - 16, 16) != 0) return BOOKMARK_UNVERIFIED;
  char path[PATH_MAX] = "";
  uint64_t inode = 0;
  for (size_t at = 18; at + 3 <= length - 16;) {
    unsigned tag = bytes[at], size = (unsigned)bytes[at + 1] << 8 | bytes[at + 2];
    const unsigned char *value = bytes + at + 3;
    if (at + 3 + size > length - 16) return BOOKMARK_UNVERIFIED;
    if (tag == 0x03 && size < sizeof path) {
      memcpy(path, value, size);
      path[size] = '\0';
    } else if (tag == 0x11 && size == 8) {
      for (int i = 0; i < 8; i++) inode = inode << 8 | value[i];
    }
    at += 3 + size;
  }
  struct statx target;
  if (statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC, STATX_BASIC_STATS | STATX_BTIME, &target) != 0)
    return BOOKMARK_MOVED;
  return target.stx_ino == inode ? BOOKMARK_OK : BOOKMARK_MOVED;
}

static unsigned char *buffer;
static size_t buffer_capacity;

/* Checks the document `name` in the open folder `folder`; `path` is its real path. */
static void check_document(int folder, const char *name, const char *path) {
  int fd = openat(folder, name, O_RDONLY | O_NONBLOCK | O_NOATIME | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == EPERM) fd = openat(folder, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    printf("%s: unreadable: %s\n", path, strerror(errno));
    return;
  }
  Key key = {.present = 0};
  unsigned char value[64];
  ssize_t length = fgetxattr(fd, "user.docbm.key", value, sizeof value);
  if (length == 46 && memcmp(value, "DBMK", 4) == 0 && value[4] == 1 && value[5] == 1) {
    memcpy(key.key, value + 6, 32);
    fingerprint_of(key.key, key.fingerprint);
    key.present = memcmp(key.fingerprint, value + 38, 8) == 0;
  }
  size_t size = 0;
  for (;;) {
    if (buffer_capacity - size < 65536) {
      buffer_capacity = buffer_capacity ? buffer_capacity * 2 : 1 << 20;
      buffer = realloc(buffer, buffer_capacity);
    }
    ssize_t got = read(fd, buffer + size, buffer_capacity - size);
    if (got <= 0) break;
    size += (size_t)got;
  }
  close(fd);

  const Record *record = escrow ? record_of(path) : NULL;
  int bookmarks = 0, moved = 0, unverified = 0;
  Key escrowed = {.present = 0};
  unsigned char *end = buffer + size, *at = buffer;
  while ((at = memmem(at, (size_t)(end - at), "docbmRec", 8)) != NULL) {
    unsigned char header[18], record_bytes[10240];
    if (!decode(at, (size_t)(end - at), header, 18) || header[6] != 1 || header[7] != 0) {
      at += 8;
      continue;
    }
    size_t record_length = (size_t)header[8] << 8 | header[9];
    if (record_length < 34 || record_length > sizeof record_bytes ||
        !decode(at, (size_t)(end - at), record_bytes, record_length)) {
      at += 8;
      continue;
    }
    bookmarks++;
    const Key *verifying = &key;
    if (!key.present) {
      if (!escrowed.present || memcmp(escrowed.fingerprint, header + 10, 8) != 0)
        escrowed_key(header + 10, &escrowed);
      verifying = &escrowed;
    }
    switch (check_bookmark(record_bytes, record_length, verifying)) {
      case BOOKMARK_OK: break;
      case BOOKMARK_MOVED: moved++; break;
      case BOOKMARK_UNVERIFIED: unverified++; break;
    }
    at += (record_length * 4 + 2) / 3;
  }
  if (bookmarks && !key.present) {
    lost_keys++;
    printf("%s: keyLost: %d bookmarks%s; escrow %s\n", path, bookmarks, unverified ? ", not verified" : "",
           escrowed.present ? (record ? "holds its record and key: docbm repair restores it" : "holds its key")
                            : "does not hold its key");
  } else if (unverified || moved) {
    printf("%s: %d of %d bookmarks unverified, %d moved\n", path, unverified, bookmarks, moved);
  }
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Checks the folder at `path` (real), open as `fd` (closed here): its files in name order,
 * then its folders. */
static void check_folder(int fd, const char *path) {
  DIR *stream = fdopendir(fd);
  if (!stream) {
    close(fd);
    return;
  }
  char **files = NULL, **folders = NULL;
  size_t file_count = 0, folder_count = 0, file_capacity = 0, folder_capacity = 0;
  struct dirent *entry;
  while ((entry = readdir(stream)) != NULL) {
    if (entry->d_type == DT_REG) {
      if (file_count == file_capacity) files = realloc(files, (file_capacity = file_capacity * 2 + 64) * sizeof *files);
      files[file_count++] = strdup(entry->d_name);
    } else if (entry->d_type == DT_DIR && strcmp(entry->d_name, ".") && strcmp(entry->d_name, "..")) {
      if (folder_count == folder_capacity)
        folders = realloc(folders, (folder_capacity = folder_capacity * 2 + 16) * sizeof *folders);
      folders[folder_count++] = strdup(entry->d_name);
    }
  }
  qsort(files, file_count, sizeof *files, compare_names);
  qsort(folders, folder_count, sizeof *folders, compare_names);
  char child[PATH_MAX];
  for (size_t i = 0; i < file_count; i++) {
    snprintf(child, sizeof child, "%s/%s", path, files[i]);
    check_document(dirfd(stream), files[i], child);
    free(files[i]);
  }
  for (size_t i = 0; i < folder_count; i++) {
    snprintf(child, sizeof child, "%s/%s", path, folders[i]);
    int sub = openat(dirfd(stream), folders[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub >= 0) check_folder(sub, child);
    free(folders[i]);
  }
  free(files);
  free(folders);
  closedir(stream);
}

int main(int argc, char **argv) {
  if (argc != 2 || sodium_init() < 0) return 1;
  char root[PATH_MAX];
  if (!realpath(argv[1], root)) {
    fprintf(stderr, "check-floor: %s: %s\n", argv[1], strerror(errno));
    return 1;
  }
  read_escrow(root);
  int fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return 1;
  check_folder(fd, root);
  if (key_by_fingerprint) sqlite3_finalize(key_by_fingerprint);
  if (escrow) sqlite3_close(escrow);
  return lost_keys ? 2 : 0;
}
