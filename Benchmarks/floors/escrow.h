/* The escrow as the C floors open it: the folder in DOCBM_ESCROW_DIR trusted the way docbm
 * trusts it (a real folder of the user's that others cannot write, under folders owned by
 * the user or root that others cannot write unless sticky), then escrow.sqlite opened by
 * name without following links and checked (a regular file of the user's that others
 * cannot write), then opened read-only with SQLite. */
#ifndef DOCBM_FLOORS_ESCROW_H
#define DOCBM_FLOORS_ESCROW_H

#include <fcntl.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether `path` and each folder above it may be trusted by user `uid`. */
static int trusted_ancestors(const char *path, uid_t uid) {
  char real[PATH_MAX];
  if (!realpath(path, real)) return 0;
  char *slash = real + strlen(real);
  for (;;) {
    struct stat st;
    if (lstat(real[0] ? real : "/", &st) != 0) return 0;
    if (st.st_uid != uid && st.st_uid != 0) return 0;
    if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX)) return 0;
    if (slash == real) return 1;
    while (slash > real && *slash != '/') slash--;
    *slash = '\0';
  }
}

/* The escrow database in `folder`, or NULL with `*problem` saying why it was not opened. */
static sqlite3 *open_trusted_escrow(const char *folder, const char **problem) {
  uid_t uid = geteuid();
  struct stat st;
  int dir = open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0) {
    *problem = "the escrow folder cannot be opened";
    return NULL;
  }
  if (fstat(dir, &st) != 0 || st.st_uid != uid || (st.st_mode & 022) || !trusted_ancestors(folder, uid)) {
    close(dir);
    *problem = "the escrow folder is not trusted";
    return NULL;
  }
  int file = openat(dir, "escrow.sqlite", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  close(dir);
  if (file < 0) {
    *problem = "there is no escrow database";
    return NULL;
  }
  int trusted = fstat(file, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == uid && !(st.st_mode & 022);
  close(file);
  if (!trusted) {
    *problem = "the escrow database is not trusted";
    return NULL;
  }
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/escrow.sqlite", folder);
  sqlite3 *database;
  if (sqlite3_open_v2(path, &database, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK) {
    sqlite3_close(database);
    *problem = "the escrow database cannot be opened";
    return NULL;
  }
  return database;
}

#endif
