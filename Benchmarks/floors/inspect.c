/* The floor under `docbm inspect DOC` for a document that carries a key and no bookmark:
 * what a careful C author makes the same calls for. It opens the document once, lists and
 * sizes its extended attributes, reads and checks the key (its fingerprint is a keyed
 * BLAKE2b hash, as docbm's), reads the bytes looking for a bookmark (the record's magic,
 * raw or as its text form), then checks the escrow folder the way docbm trusts it (a
 * folder of the user's, not writable by others, nor any folder above it unless sticky),
 * opens its database read-only without following links, and looks the document up by
 * path or inode (the escrow opened as escrow.h says). It prints what it found. Build:
 * cc -O2 inspect.c $(pkg-config --cflags --libs sqlite3 libsodium). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "escrow.h"

static int fail(const char *what) {
  fprintf(stderr, "inspect-floor: %s: %s\n", what, strerror(errno));
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  const char *document = argv[1];
  int fd = open(document, O_RDONLY | O_NONBLOCK | O_NOATIME | O_CLOEXEC);
  if (fd < 0 && errno == EPERM) fd = open(document, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return fail(document);
  struct stat st;
  if (fstat(fd, &st) != 0) return fail(document);
  ino_t inode = st.st_ino;

  char names[1024];
  ssize_t listed = flistxattr(fd, names, sizeof names);
  if (listed < 0) return fail("flistxattr");
  printf("document:     %s\n", document);
  unsigned char value[64];
  ssize_t length = fgetxattr(fd, "user.docbm.key", value, sizeof value);
  unsigned char fingerprint[16];
  int has_key = 0;
  if (sodium_init() < 0) return 1;
  if (length == 46 && memcmp(value, "DBMK", 4) == 0 && value[4] == 1 && value[5] == 1) {
    static const char context[] = "docbm.key-fingerprint.v1";
    crypto_generichash(fingerprint, sizeof fingerprint, (const unsigned char *)context,
                       sizeof context - 1, value + 6, 32);
    has_key = memcmp(fingerprint, value + 38, 8) == 0;
  }
  if (has_key)
    printf("key:          present, fingerprint %02x%02x%02x%02x-%02x%02x%02x%02x\n", fingerprint[0],
           fingerprint[1], fingerprint[2], fingerprint[3], fingerprint[4], fingerprint[5],
           fingerprint[6], fingerprint[7]);
  else
    printf("key:          absent\n");
  printf("attributes:\n");
  for (char *name = names; name < names + listed; name += strlen(name) + 1) {
    ssize_t size = fgetxattr(fd, name, NULL, 0);
    if (size >= 0) printf("  %s  %zd bytes\n", name, size);
  }

  static const unsigned char magic[] = {0x76, 0x87, 0x1B, 0x99, 0x17, 0x9C};
  static char buffer[1 << 16];
  int bookmarks = 0;
  ssize_t got;
  while ((got = read(fd, buffer, sizeof buffer)) > 0) {
    if (memmem(buffer, got, magic, sizeof magic) || memmem(buffer, got, "docbmRec", 8)) bookmarks++;
  }
  if (got < 0) return fail("read");
  close(fd);
  printf("bookmarks:    %s\n", bookmarks ? "found" : "none found in the contents");

  const char *folder = getenv("DOCBM_ESCROW_DIR");
  if (!folder) return 2;
  const char *problem = "";
  sqlite3 *db = open_trusted_escrow(folder, &problem);
  if (!db) {
    fprintf(stderr, "inspect-floor: %s\n", problem);
    return 1;
  }
  char absolute[PATH_MAX];
  if (!realpath(document, absolute)) return fail("realpath");
  sqlite3_stmt *statement;
  if (sqlite3_prepare_v2(db, "SELECT fingerprint FROM documents WHERE path = ?1 OR inode = ?2", -1,
                         &statement, NULL) != SQLITE_OK)
    return 1;
  sqlite3_bind_blob(statement, 1, absolute, (int)strlen(absolute), SQLITE_STATIC);
  sqlite3_bind_int64(statement, 2, (sqlite3_int64)inode);
  char escrowed[32] = "";
  while (sqlite3_step(statement) == SQLITE_ROW)
    snprintf(escrowed, sizeof escrowed, "%s", (const char *)sqlite3_column_text(statement, 0));
  sqlite3_finalize(statement);
  sqlite3_close(db);
  printf("verdict:      %s\n", escrowed[0] ? "escrow record found" : "no escrow record");
  return 0;
}
