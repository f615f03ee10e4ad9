/*
 * libdocbm from C: every call of docbm.h, the error codes a C caller meets, and the
 * ownership rules. Built with AddressSanitizer and LeakSanitizer by `make test-c`, so that
 * a leaked handle or string, or a use after free, fails the run.
 *
 * Usage: test_docbm SCRATCH_FOLDER (an empty folder on a filesystem with user xattrs).
 */
#define _GNU_SOURCE
#include <docbm.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

static int failures = 0;
static const char *scratch;

#define EXPECT(condition)                                                              \
  do {                                                                                 \
    if (!(condition)) {                                                                \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #condition);        \
      failures++;                                                                      \
    }                                                                                  \
  } while (0)

/* A path inside the scratch folder, in a static buffer per slot. */
static const char *path_in(int slot, const char *name) {
  static char buffers[8][4096];
  snprintf(buffers[slot], sizeof buffers[slot], "%s/%s", scratch, name);
  return buffers[slot];
}

static void write_file(const char *path, const char *contents) {
  FILE *file = fopen(path, "w");
  if (!file || fputs(contents, file) < 0 || fclose(file) != 0) {
    perror(path);
    exit(2);
  }
}

/* Checks that `error` holds `code`, has a message and a named code, and releases it. */
static void expect_error(docbm_error *error, docbm_code code, int line) {
  if (!error) {
    fprintf(stderr, "%s:%d: expected error %s, got none\n", __FILE__, line, docbm_code_name(code));
    failures++;
    return;
  }
  if (docbm_error_code(error) != code) {
    fprintf(stderr, "%s:%d: expected error %s, got %s (%s)\n", __FILE__, line,
            docbm_code_name(code), docbm_code_name(docbm_error_code(error)), docbm_error_message(error));
    failures++;
  }
  if (strlen(docbm_error_message(error)) == 0) {
    fprintf(stderr, "%s:%d: empty message\n", __FILE__, line);
    failures++;
  }
  docbm_error_free(error);
}
#define EXPECT_ERROR(error, code) expect_error((error), (code), __LINE__)

/* A plain atomic save, as many programs write: a new file with the document's mode,
 * renamed over it. It carries no extended attributes, so the document loses its key. */
static void plain_atomic_save(const char *document, const char *contents) {
  char temporary[4200];
  struct stat status;
  snprintf(temporary, sizeof temporary, "%s.tmp", document);
  write_file(temporary, contents);
  if (stat(document, &status) != 0 || chmod(temporary, status.st_mode & 07777) != 0
      || rename(temporary, document) != 0) {
    perror("rename");
    exit(2);
  }
}

static int write_hello(const char *path, void *context) {
  FILE *file = fopen(path, "w");
  if (!file) return 1;
  fputs((const char *)context, file);
  return fclose(file) == 0 ? 0 : 1;
}

static int write_nothing(const char *path, void *context) {
  (void)path;
  (void)context;
  return 0;
}

/* Writes a folder document: the folder, and a file in it holding `context`. */
static int write_folder(const char *path, void *context) {
  char inside[4200];
  if (mkdir(path, 0755) != 0) return 1;
  snprintf(inside, sizeof inside, "%s/contents.txt", path);
  return write_hello(inside, context);
}

static int fail_writing(const char *path, void *context) {
  (void)path;
  (void)context;
  return 7;
}

static void test_names(void) {
  EXPECT(strcmp(docbm_code_name(DOCBM_KEY_MISSING), "keyMissing") == 0);
  EXPECT(strcmp(docbm_code_name(DOCBM_MISSING), "missing") == 0);
  EXPECT(strcmp(docbm_code_name(DOCBM_OUTSIDE_SANDBOX), "outsideSandbox") == 0);
  EXPECT(strcmp(docbm_code_name(DOCBM_NOT_FOUND_NEARBY), "notFoundNearby") == 0);
  EXPECT(strcmp(docbm_recommendation_name(DOCBM_RECOMMEND_SEARCH_WIDER), "searchWider") == 0);
  EXPECT(strcmp(docbm_code_name(DOCBM_INVALID_ARGUMENT), "invalidArgument") == 0);
  EXPECT(docbm_code_name((docbm_code)999) == NULL);
  EXPECT(strcmp(docbm_recommendation_name(DOCBM_RECOMMEND_REPAIR_KEY), "repairKey") == 0);
  EXPECT(strcmp(docbm_verdict_name(DOCBM_VERDICT_KEY_LOST), "keyLost") == 0);
  EXPECT(strcmp(docbm_stale_reason_name(DOCBM_STALE_TARGET_MOVED), "targetMoved") == 0);
  EXPECT(docbm_stale_reason_name((docbm_stale_reason)3) == NULL);
  EXPECT(strcmp(docbm_repair_action_name(DOCBM_REPAIR_NOTHING_TO_DO), "nothingToDo") == 0);
  const char *version = docbm_version();
  EXPECT(version != NULL && strchr(version, '.') != NULL);
  /* The library this test links is the release of the header it is compiled with. */
  char compiled[32];
  snprintf(compiled, sizeof compiled, "%d.%d.%d", DOCBM_VERSION_MAJOR, DOCBM_VERSION_MINOR, DOCBM_VERSION_PATCH);
  EXPECT(version != NULL && strcmp(version, compiled) == 0);
}

static void test_invalid_arguments(void) {
  docbm_error *error = NULL;
  EXPECT(docbm_document_open(NULL, &error) == NULL);
  EXPECT(error && docbm_error_recommendation(error) == DOCBM_RECOMMEND_NONE);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  EXPECT(docbm_document_open("", &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  /* No error wanted: the return value still says it failed. */
  EXPECT(docbm_document_open(NULL, NULL) == NULL);
  error = NULL;
  EXPECT(docbm_make_bookmark(NULL, "x", &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  EXPECT(docbm_check(NULL, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  EXPECT(docbm_replace_document_with_writer(NULL, write_nothing, NULL, &error) == -1);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  /* Releasing NULL does nothing. */
  docbm_document_close(NULL);
  docbm_resolution_free(NULL);
  docbm_error_free(NULL);
  docbm_check_result_free(NULL);
  docbm_repair_report_free(NULL);
  docbm_free(NULL);
}

static void test_make_resolve_save_check_repair(void) {
  const char *document_path = path_in(0, "notes.txt");
  const char *image = path_in(1, "image.png");
  const char *renamed = path_in(2, "image-renamed.png");
  write_file(document_path, "notes\n");
  write_file(image, "png\n");

  docbm_error *error = NULL;
  docbm_document *document = docbm_document_open(document_path, &error);
  EXPECT(document != NULL && error == NULL);
  if (!document) return;

  char *bookmark = docbm_make_bookmark(document, image, &error);
  EXPECT(bookmark != NULL && error == NULL);
  if (!bookmark) {
    docbm_error_free(error);
    docbm_document_close(document);
    return;
  }
  EXPECT(strncmp(bookmark, "docbmRec", 8) == 0);
  EXPECT(getxattr(document_path, "user.docbm.key", NULL, 0) > 0);

  /* Resolves where it was: not stale, nothing to refresh. */
  docbm_resolution *resolution = docbm_resolve(document, bookmark, &error);
  EXPECT(resolution != NULL);
  if (resolution) {
    EXPECT(strcmp(docbm_resolution_path(resolution), image) == 0);
    EXPECT(docbm_resolution_is_stale(resolution) == 0);
    EXPECT(docbm_resolution_stale_reasons(resolution) == 0);
    EXPECT(docbm_resolution_refreshed(resolution) == NULL);
    EXPECT(docbm_resolution_is_folder(resolution) == 0);
    EXPECT(docbm_resolution_is_in_trash(resolution) == 0);
    docbm_resolution_free(resolution);
  }

  /* After a rename: found, stale, with a refreshed bookmark that resolves unstale. */
  EXPECT(rename(image, renamed) == 0);
  resolution = docbm_resolve(document, bookmark, &error);
  EXPECT(resolution != NULL);
  if (resolution) {
    EXPECT(strcmp(docbm_resolution_path(resolution), renamed) == 0);
    EXPECT(docbm_resolution_is_stale(resolution) == 1);
    EXPECT(docbm_resolution_stale_reasons(resolution) & DOCBM_STALE_TARGET_MOVED);
    const char *refreshed = docbm_resolution_refreshed(resolution);
    EXPECT(refreshed != NULL);
    if (refreshed) {
      docbm_resolution *again = docbm_resolve(document, refreshed, &error);
      EXPECT(again != NULL && docbm_resolution_is_stale(again) == 0);
      docbm_resolution_free(again);
    }
    docbm_resolution_free(resolution);
  }

  /* A batch: one good, one garbage, one missing target. */
  const char *gone = path_in(3, "gone.txt");
  write_file(gone, "gone\n");
  char *gone_bookmark = docbm_make_bookmark(document, gone, &error);
  EXPECT(gone_bookmark != NULL);
  EXPECT(unlink(gone) == 0);
  const char *texts[3] = {bookmark, "not a bookmark", gone_bookmark};
  docbm_resolution *resolutions[3];
  docbm_error *errors[3];
  EXPECT(docbm_resolve_all(document, texts, 3, resolutions, errors, &error) == 1);
  EXPECT(resolutions[0] != NULL && errors[0] == NULL);
  EXPECT(resolutions[1] == NULL);
  EXPECT_ERROR(errors[1], DOCBM_CORRUPT);
  EXPECT(resolutions[2] == NULL);
  /* Gone: missing once its whole filesystem was searched. On a large filesystem the search's
   * time limit can end it first, and the error says that a wider search may find it. */
  if (errors[2] && docbm_error_code(errors[2]) == DOCBM_NOT_FOUND_NEARBY) {
    EXPECT(docbm_error_recommendation(errors[2]) == DOCBM_RECOMMEND_SEARCH_WIDER);
    EXPECT_ERROR(errors[2], DOCBM_NOT_FOUND_NEARBY);
  } else {
    if (errors[2]) EXPECT(docbm_error_recommendation(errors[2]) == DOCBM_RECOMMEND_FORGET);
    EXPECT_ERROR(errors[2], DOCBM_MISSING);
  }
  docbm_resolution_free(resolutions[0]);
  EXPECT(docbm_resolve_all(document, NULL, 0, NULL, NULL, &error) == 0);
  docbm_free(gone_bookmark);

  /* docbm's save keeps the key and the mode. */
  EXPECT(chmod(document_path, 0640) == 0);
  const char contents[] = "notes, second version\n";
  EXPECT(docbm_replace_document(document, contents, sizeof contents - 1, &error) == 0);
  struct stat status;
  EXPECT(stat(document_path, &status) == 0 && (status.st_mode & 07777) == 0640);
  EXPECT(getxattr(document_path, "user.docbm.key", NULL, 0) > 0);
  resolution = docbm_resolve(document, bookmark, &error);
  EXPECT(resolution != NULL);
  docbm_resolution_free(resolution);

  /* The writer form, and its failures: the document stays as it was. */
  EXPECT(docbm_replace_document_with_writer(document, write_hello, "third version\n", &error) == 0);
  EXPECT(docbm_replace_document_with_writer(document, fail_writing, NULL, &error) == -1);
  EXPECT_ERROR(error, DOCBM_WRITER_FAILED);
  error = NULL;
  EXPECT(docbm_replace_document_with_writer(document, write_nothing, NULL, &error) == -1);
  EXPECT_ERROR(error, DOCBM_NOTHING_WRITTEN);
  error = NULL;

  /* The check: ok, then keyLost after a plain atomic save, which repair puts right. */
  size_t length = strlen(bookmark);
  char *with_bookmark = malloc(length + 2);
  memcpy(with_bookmark, bookmark, length);
  with_bookmark[length] = '\n';
  with_bookmark[length + 1] = '\0';
  EXPECT(docbm_replace_document(document, with_bookmark, length + 1, &error) == 0);
  docbm_check_result *check = docbm_check(document_path, &error);
  EXPECT(check != NULL);
  if (check) {
    EXPECT(docbm_check_result_verdict(check) == DOCBM_VERDICT_OK);
    EXPECT(docbm_check_result_is_problem(check) == 0);
    EXPECT(docbm_check_result_bookmark_count(check) == 1);
    docbm_check_result_free(check);
  }
  plain_atomic_save(document_path, with_bookmark);
  resolution = docbm_resolve(document, bookmark, &error);
  EXPECT(resolution == NULL);
  if (error) EXPECT(docbm_error_recommendation(error) == DOCBM_RECOMMEND_REPAIR_KEY);
  EXPECT_ERROR(error, DOCBM_KEY_MISSING);
  error = NULL;
  check = docbm_check(document_path, &error);
  EXPECT(check != NULL);
  if (check) {
    EXPECT(docbm_check_result_verdict(check) == DOCBM_VERDICT_KEY_LOST);
    EXPECT(docbm_check_result_is_problem(check) == 1);
    EXPECT(strlen(docbm_check_result_message(check)) > 0);
    docbm_check_result_free(check);
  }
  docbm_repair_report *report = docbm_repair(document_path, &error);
  EXPECT(report != NULL);
  if (report) {
    EXPECT(docbm_repair_report_action(report) == DOCBM_REPAIR_RESTORED);
    EXPECT(docbm_repair_report_refusal(report) == NULL);
    EXPECT(docbm_repair_report_verdict(report) == DOCBM_VERDICT_OK);
    EXPECT(strlen(docbm_repair_report_message(report)) > 0);
    docbm_repair_report_free(report);
  }
  resolution = docbm_resolve(document, bookmark, &error);
  EXPECT(resolution != NULL && error == NULL);
  docbm_resolution_free(resolution);

  /* A copy made without the key, the document still carrying it: refused, with the one
   * remedy that fits, naming the document, and said at the end of the message. */
  EXPECT(mkdir(path_in(5, "copy"), 0700) == 0);
  const char *copy_path = path_in(5, "copy/notes.txt");
  write_file(copy_path, with_bookmark);
  report = docbm_repair(copy_path, &error);
  EXPECT(report != NULL);
  if (report) {
    EXPECT(docbm_repair_report_action(report) == DOCBM_REPAIR_REFUSED);
    const char *remedy = docbm_repair_report_remedy(report);
    EXPECT(remedy != NULL &&
           (strcmp(remedy, "adopt") == 0 || strcmp(remedy, "repairAllowingUnrecorded") == 0));
    const char *recorded = docbm_repair_report_recorded_document(report);
    EXPECT(recorded != NULL && strcmp(recorded, document_path) == 0);
    const char *advice = docbm_repair_report_advice(report);
    const char *message = docbm_repair_report_message(report);
    EXPECT(advice != NULL && strlen(message) > strlen(advice) &&
           strcmp(message + strlen(message) - strlen(advice), advice) == 0);
    docbm_repair_report_free(report);
  }
  /* The app knows the copy is the user's own: it gets the key, and its bookmark verifies. */
  report = docbm_repair_allowing_unrecorded(copy_path, &error);
  EXPECT(report != NULL && error == NULL);
  if (report) {
    EXPECT(docbm_repair_report_action(report) == DOCBM_REPAIR_RESTORED);
    EXPECT(docbm_repair_report_verdict(report) == DOCBM_VERDICT_OK);
    docbm_repair_report_free(report);
  }
  EXPECT(getxattr(copy_path, "user.docbm.key", NULL, 0) > 0);
  EXPECT(docbm_repair_allowing_unrecorded(NULL, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  free(with_bookmark);

  /* A changed byte in the tag: tampered. */
  char *changed = strdup(bookmark);
  size_t last = strlen(changed) - 2;
  changed[last] = changed[last] == 'A' ? 'B' : 'A';
  EXPECT(docbm_resolve(document, changed, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_TAMPERED);
  error = NULL;
  free(changed);

  /* The bookmark against another document with its own key: keyMismatch. */
  const char *other_path = path_in(4, "other.txt");
  write_file(other_path, "other\n");
  docbm_document *other = docbm_document_open(other_path, &error);
  char *other_bookmark = docbm_make_bookmark(other, renamed, &error);
  EXPECT(other_bookmark != NULL);
  EXPECT(docbm_resolve(other, bookmark, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_KEY_MISMATCH);
  error = NULL;

  /* The document holding its own bookmark and the other's loses its key to a plain save:
   * its bookmarks name two keys, the escrow records one of them for it, and repair puts
   * that one back (the other's bookmark stays unverified: mixed). */
  if (other_bookmark) {
    size_t both_length = strlen(bookmark) + strlen(other_bookmark) + 2;
    char *both = malloc(both_length + 1);
    snprintf(both, both_length + 1, "%s\n%s\n", bookmark, other_bookmark);
    EXPECT(docbm_replace_document(document, both, both_length, &error) == 0);
    plain_atomic_save(document_path, both);
    docbm_repair_report *mixed = docbm_repair(document_path, &error);
    EXPECT(mixed != NULL);
    if (mixed) {
      EXPECT(docbm_repair_report_action(mixed) == DOCBM_REPAIR_RESTORED);
      EXPECT(docbm_repair_report_verdict(mixed) == DOCBM_VERDICT_MIXED);
      docbm_repair_report_free(mixed);
    }
    docbm_resolution *again = docbm_resolve(document, bookmark, &error);
    EXPECT(again != NULL && error == NULL);
    docbm_resolution_free(again);
    free(both);
  }
  docbm_free(other_bookmark);
  docbm_document_close(other);

  /* A target that is not there, and one that is a FIFO. */
  EXPECT(docbm_make_bookmark(document, path_in(5, "nowhere"), &error) == NULL);
  EXPECT_ERROR(error, DOCBM_NOT_FOUND);
  error = NULL;
  const char *fifo = path_in(6, "fifo");
  EXPECT(mkfifo(fifo, 0600) == 0);
  EXPECT(docbm_make_bookmark(document, fifo, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_UNSUPPORTED_FILE_TYPE);
  error = NULL;

  /* A hard-linked document is not split silently. */
  const char *linked = path_in(7, "notes-link.txt");
  EXPECT(link(document_path, linked) == 0);
  EXPECT(docbm_replace_document(document, "x", 1, &error) == -1);
  if (error) {
    EXPECT(docbm_error_recommendation(error) == DOCBM_RECOMMEND_CONFIRM_SAVE);
    EXPECT(docbm_error_path(error) != NULL);
  }
  EXPECT_ERROR(error, DOCBM_HARD_LINKED);
  error = NULL;

  docbm_free(bookmark);
  docbm_document_close(document);
}

/* A read-only document is not overwritten unless the caller allows it; the allowed save
 * keeps its mode. */
static void test_read_only_document(void) {
  const char *document_path = path_in(0, "read-only.txt");
  write_file(document_path, "old\n");
  EXPECT(chmod(document_path, 0444) == 0);
  docbm_error *error = NULL;
  docbm_document *document = docbm_document_open(document_path, &error);
  EXPECT(document != NULL && error == NULL);
  if (!document) return;

  EXPECT(docbm_replace_document(document, "new\n", 4, &error) == -1);
  if (error) {
    /* The fields Swift's DocbmError has: the bare sentence, the step, no system call. */
    EXPECT(docbm_error_recommendation(error) == DOCBM_RECOMMEND_CONFIRM_SAVE);
    EXPECT(strncmp(docbm_error_message(error), document_path, strlen(document_path)) == 0);
    EXPECT(strncmp(docbm_error_description(error), "readOnlyDocument: ", 18) == 0);
    EXPECT(strstr(docbm_error_description(error), docbm_error_message(error)) != NULL);
    EXPECT(docbm_error_step(error) && strcmp(docbm_error_step(error), "inspectDocument") == 0);
    EXPECT(docbm_error_system_call(error) == NULL && docbm_error_errno(error) == 0);
    EXPECT(docbm_error_last_known_path(error) == NULL);
    EXPECT(strcmp(docbm_error_path(error), document_path) == 0);
  }
  EXPECT_ERROR(error, DOCBM_READ_ONLY_DOCUMENT);
  error = NULL;
  char contents[16] = {0};
  FILE *file = fopen(document_path, "r");
  EXPECT(file != NULL);
  if (file) {
    EXPECT(fread(contents, 1, sizeof contents - 1, file) == 4);
    fclose(file);
  }
  EXPECT(strcmp(contents, "old\n") == 0);

  EXPECT(docbm_replace_document_allowing(document, "new\n", 4, 8, &error) == -1);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  EXPECT(docbm_replace_document_allowing(document, "new\n", 4, DOCBM_ALLOW_READ_ONLY, &error) == 0);
  EXPECT(error == NULL);
  struct stat status;
  EXPECT(stat(document_path, &status) == 0 && (status.st_mode & 07777) == 0444);
  memset(contents, 0, sizeof contents);
  file = fopen(document_path, "r");
  EXPECT(file != NULL);
  if (file) {
    EXPECT(fread(contents, 1, sizeof contents - 1, file) == 4);
    fclose(file);
  }
  EXPECT(strcmp(contents, "new\n") == 0);
  EXPECT(strcmp(docbm_code_name(DOCBM_READ_ONLY_DOCUMENT), "readOnlyDocument") == 0);
  docbm_document_close(document);
}

/* The escrow's refusals reach C with their codes. */
static void test_escrow_refusals(void) {
  docbm_error *error = NULL;
  const char *target = path_in(0, "escrow-target.txt");
  write_file(target, "target\n");

  /* A document the escrow recorded, replaced by a file readable by more users than it
   * was: no new key is made there (it would end the recorded key's bookmarks). */
  const char *recorded = path_in(1, "recorded.txt");
  write_file(recorded, "recorded\n");
  EXPECT(chmod(recorded, 0600) == 0);
  docbm_document *document = docbm_document_open(recorded, &error);
  char *bookmark = docbm_make_bookmark(document, target, &error);
  EXPECT(bookmark != NULL);
  docbm_free(bookmark);
  const char *swapped = path_in(2, "recorded.txt.new");
  write_file(swapped, "someone else's\n");
  EXPECT(chmod(swapped, 0644) == 0 && rename(swapped, recorded) == 0);
  EXPECT(docbm_make_bookmark(document, target, &error) == NULL);
  /* The message names the way out (forget the record), never an adopt it would refuse. */
  EXPECT(error && strstr(docbm_error_message(error), "docbm escrow forget ") != NULL);
  EXPECT(error && strstr(docbm_error_message(error), "adopt") == NULL);
  EXPECT_ERROR(error, DOCBM_DOCUMENT_UNPROVEN);
  error = NULL;
  EXPECT(getxattr(recorded, "user.docbm.key", NULL, 0) < 0 && errno == ENODATA);
  docbm_document_close(document);

  /* An escrow folder others can write to is not used. */
  const char *shared = path_in(3, "shared-escrow");
  EXPECT(mkdir(shared, 0777) == 0 && chmod(shared, 0777) == 0);
  const char *previous = getenv("DOCBM_ESCROW_DIR");
  char *saved = previous ? strdup(previous) : NULL;
  setenv("DOCBM_ESCROW_DIR", shared, 1);
  const char *fresh = path_in(4, "fresh.txt");
  write_file(fresh, "fresh\n");
  document = docbm_document_open(fresh, &error);
  EXPECT(docbm_make_bookmark(document, target, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_ESCROW_UNTRUSTED);
  error = NULL;
  docbm_document_close(document);
  if (saved) setenv("DOCBM_ESCROW_DIR", saved, 1);
  free(saved);
}

/* An app's saves, for the lint: a plain atomic save, docbm's save, and one that fails. */
static int save_plainly(const char *path, void *context) {
  (void)context;
  plain_atomic_save(path, "{}\n");
  return 0;
}

static int save_with_docbm(const char *path, void *context) {
  (void)context;
  docbm_error *error = NULL;
  docbm_document *document = docbm_document_open(path, &error);
  int status = docbm_replace_document(document, "{}\n", 3, &error);
  docbm_error_free(error);
  docbm_document_close(document);
  return status;
}

static int save_failing(const char *path, void *context) {
  (void)path;
  (void)context;
  return 5;
}

/* Whether the report has a finding of `kind` whose fix names docbm.h's save, not Swift's. */
static int has_finding(const docbm_lint_report *report, const char *kind) {
  for (size_t index = 0; index < docbm_lint_report_finding_count(report); index++) {
    if (strcmp(docbm_lint_report_finding_kind(report, index), kind) == 0) {
      const char *fix = docbm_lint_report_finding_fix(report, index);
      return docbm_lint_report_finding_message(report, index) != NULL && fix != NULL
          && strstr(fix, "docbm_replace_document") != NULL && strstr(fix, "replaceDocument") == NULL;
    }
  }
  return 0;
}

static void test_lint(void) {
  docbm_error *error = NULL;
  const char *folder = path_in(0, "lint");
  EXPECT(mkdir(folder, 0755) == 0);

  docbm_lint_report *report = docbm_lint_save(save_plainly, NULL, folder, &error);
  EXPECT(report != NULL && error == NULL);
  if (report) {
    EXPECT(docbm_lint_report_verdict(report) == DOCBM_LINT_LOST);
    EXPECT(docbm_lint_report_is_safe(report) == 0);
    EXPECT(has_finding(report, "keyLost"));
    EXPECT(strstr(docbm_lint_report_summary(report), "keyLost") != NULL);
    EXPECT(docbm_lint_report_finding_kind(report, docbm_lint_report_finding_count(report)) == NULL);
    docbm_lint_report_free(report);
  }

  report = docbm_lint_save(save_with_docbm, NULL, folder, &error);
  EXPECT(report != NULL);
  if (report) {
    EXPECT(docbm_lint_report_verdict(report) == DOCBM_LINT_KEPT);
    EXPECT(docbm_lint_report_is_safe(report) == 1);
    EXPECT(docbm_lint_report_finding_count(report) == 0);
    docbm_lint_report_free(report);
  }

  report = docbm_lint_save(save_failing, NULL, folder, &error);
  EXPECT(report != NULL);
  if (report) {
    EXPECT(has_finding(report, "saveFailed"));
    EXPECT(strstr(docbm_lint_report_summary(report), "the save returned 5") != NULL);
    docbm_lint_report_free(report);
  }

  EXPECT(docbm_lint_save(NULL, NULL, folder, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  EXPECT(strcmp(docbm_lint_verdict_name(DOCBM_LINT_KEPT_LEAVING_FILES), "keptLeavingFiles") == 0);
  /* The scratch documents are gone. */
  EXPECT(rmdir(folder) == 0);
}

/* Counts the entries of `folder` (besides . and ..). */
static int entry_count(const char *folder) {
  DIR *stream = opendir(folder);
  int count = 0;
  if (!stream) return -1;
  for (struct dirent *entry; (entry = readdir(stream)) != NULL;) {
    if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0) count++;
  }
  closedir(stream);
  return count;
}

/* A name that is not UTF-8 (Latin-1 bytes) reaches writers and the lint's save exactly. */
static void test_names_that_are_not_utf8(void) {
  docbm_error *error = NULL;
  const char *folder = path_in(0, "caf\xe9");
  EXPECT(mkdir(folder, 0755) == 0);
  char document_path[4200];
  snprintf(document_path, sizeof document_path, "%s/r\xe9sum\xe9.txt", folder);
  write_file(document_path, "first\n");
  docbm_document *document = docbm_document_open(document_path, &error);
  EXPECT(document != NULL && error == NULL);
  EXPECT(docbm_replace_document_with_writer(document, write_hello, "second\n", &error) == 0);
  if (error) {
    fprintf(stderr, "%s\n", docbm_error_description(error));
    docbm_error_free(error);
    error = NULL;
  }
  FILE *file = fopen(document_path, "r");
  char line[32] = {0};
  EXPECT(file != NULL && fgets(line, sizeof line, file) != NULL && strcmp(line, "second\n") == 0);
  if (file) fclose(file);
  /* Nothing beside the document: no stray new version. */
  EXPECT(entry_count(folder) == 1);
  docbm_document_close(document);

  docbm_lint_report *report = docbm_lint_save(save_with_docbm, NULL, folder, &error);
  EXPECT(report != NULL && error == NULL);
  if (report) {
    EXPECT(docbm_lint_report_is_safe(report) == 1);
    if (!docbm_lint_report_is_safe(report)) fprintf(stderr, "%s\n", docbm_lint_report_summary(report));
    docbm_lint_report_free(report);
  }
  EXPECT(entry_count(folder) == 1);
  EXPECT(unlink(document_path) == 0 && rmdir(folder) == 0);
}

static void test_search_reach(void) {
  docbm_error *error = NULL;
  const char *document_path = path_in(0, "reach.txt");
  const char *target = path_in(1, "reach-target.png");
  write_file(document_path, "board\n");
  write_file(target, "target\n");
  docbm_document *document = docbm_document_open(document_path, &error);
  char *bookmark = docbm_make_bookmark(document, target, &error);
  EXPECT(bookmark != NULL && error == NULL);
  docbm_document_close(document);
  EXPECT(unlink(target) == 0);
  /* Nearby only, or no time for the walk: not found where it looked, never missing. */
  docbm_document *nearby = docbm_document_open_searching(document_path, DOCBM_SEARCH_NEARBY, -1, &error);
  EXPECT(nearby != NULL && error == NULL);
  EXPECT(docbm_resolve(nearby, bookmark, &error) == NULL);
  EXPECT(error && docbm_error_recommendation(error) == DOCBM_RECOMMEND_SEARCH_WIDER);
  EXPECT_ERROR(error, DOCBM_NOT_FOUND_NEARBY);
  docbm_document_close(nearby);
  error = NULL;
  docbm_document *hurried = docbm_document_open_searching(document_path, DOCBM_SEARCH_FILESYSTEM, 0, &error);
  EXPECT(docbm_resolve(hurried, bookmark, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_NOT_FOUND_NEARBY);
  docbm_document_close(hurried);
  error = NULL;
  EXPECT(docbm_document_open_searching(document_path, (docbm_search_reach)7, 1, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  docbm_free(bookmark);
  EXPECT(unlink(document_path) == 0);
}

/* Every interface escrows new keys in the user's escrow unless the app opts out: a key
 * lost to a plain save is put back only for the document opened with the escrow. */
static void test_escrow_use(void) {
  docbm_error *error = NULL;
  const char *escrowed = path_in(0, "escrowed.txt");
  const char *unescrowed = path_in(1, "unescrowed.txt");
  const char *target = path_in(2, "escrow-use-target.png");
  write_file(escrowed, "board\n");
  write_file(unescrowed, "board\n");
  write_file(target, "target\n");
  docbm_document *with = docbm_document_open(escrowed, &error);
  docbm_document *without =
    docbm_document_open_with(unescrowed, DOCBM_SEARCH_NEARBY, -1, DOCBM_NO_ESCROW, &error);
  EXPECT(with != NULL && without != NULL && error == NULL);
  char *kept = docbm_make_bookmark(with, target, &error);
  char *unkept = docbm_make_bookmark(without, target, &error);
  EXPECT(kept != NULL && unkept != NULL && error == NULL);
  char contents[4096];
  snprintf(contents, sizeof contents, "board %s\n", kept);
  plain_atomic_save(escrowed, contents);
  snprintf(contents, sizeof contents, "board %s\n", unkept);
  plain_atomic_save(unescrowed, contents);
  docbm_repair_report *restored = docbm_repair(escrowed, &error);
  EXPECT(restored && docbm_repair_report_action(restored) == DOCBM_REPAIR_RESTORED);
  docbm_repair_report *refused = docbm_repair(unescrowed, &error);
  EXPECT(refused && docbm_repair_report_action(refused) == DOCBM_REPAIR_REFUSED);
  EXPECT(refused && strcmp(docbm_repair_report_refusal(refused), "notEscrowed") == 0);
  docbm_repair_report_free(restored);
  docbm_repair_report_free(refused);
  EXPECT(docbm_document_open_with(escrowed, DOCBM_SEARCH_NEARBY, -1, (docbm_escrow_use)2, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  docbm_free(kept);
  docbm_free(unkept);
  docbm_document_close(with);
  docbm_document_close(without);
  EXPECT(unlink(escrowed) == 0 && unlink(unescrowed) == 0 && unlink(target) == 0);
}

static void test_relink(void) {
  docbm_error *error = NULL;
  const char *document_path = path_in(0, "relink.txt");
  const char *old_folder = path_in(1, "relink-old");
  const char *new_folder = path_in(2, "relink-new");
  const char *target = path_in(3, "relink-old/a.png");
  const char *moved = path_in(4, "relink-new/a.png");
  EXPECT(mkdir(old_folder, 0755) == 0);
  write_file(document_path, "board\n");
  write_file(target, "a\n");
  docbm_document *document = docbm_document_open(document_path, &error);
  char *bookmark = docbm_make_bookmark(document, target, &error);
  EXPECT(bookmark != NULL && error == NULL);
  EXPECT(rename(old_folder, new_folder) == 0);
  const char *bookmarks[] = {bookmark, "garbage"};
  docbm_relink_result *results[2] = {NULL, NULL};
  EXPECT(docbm_relink(document, bookmarks, 2, old_folder, new_folder, results, &error) == 1);
  EXPECT(results[0] && docbm_relink_result_outcome(results[0]) == DOCBM_RELINK_RELINKED);
  EXPECT(results[0] && strcmp(docbm_relink_result_candidate(results[0]), moved) == 0);
  const char *refreshed = results[0] ? docbm_relink_result_refreshed(results[0]) : NULL;
  EXPECT(refreshed != NULL);
  if (refreshed) {
    docbm_resolution *resolution = docbm_resolve(document, refreshed, &error);
    EXPECT(resolution && strcmp(docbm_resolution_path(resolution), moved) == 0);
    EXPECT(resolution && docbm_resolution_is_stale(resolution) == 0);
    docbm_resolution_free(resolution);
  }
  EXPECT(results[1] && docbm_relink_result_outcome(results[1]) == DOCBM_RELINK_FAILED);
  EXPECT(results[1] && docbm_relink_result_code(results[1]) == DOCBM_CORRUPT);
  EXPECT(strcmp(docbm_relink_outcome_name(DOCBM_RELINK_NOT_THE_TARGET), "notTheTarget") == 0);
  docbm_relink_result_free(results[0]);
  docbm_relink_result_free(results[1]);
  EXPECT(docbm_relink(document, bookmarks, 1, NULL, new_folder, results, &error) == -1);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  docbm_free(bookmark);
  docbm_document_close(document);
  EXPECT(unlink(moved) == 0 && rmdir(new_folder) == 0 && unlink(document_path) == 0);
}

/* A new document: bookmarks made before it exists resolve once it is created with its key,
 * a second creation at the same path is refused and changes nothing, the key is escrowed
 * (a plain save's loss is repaired), and the writer form creates a folder document. */
static void test_new_document(void) {
  docbm_error *error = NULL;
  const char *board = path_in(0, "new-board.txt");
  const char *target = path_in(1, "new-target.png");
  const char *folder = path_in(2, "new-folder.docbm");
  write_file(target, "target\n");
  docbm_new_document *draft = docbm_new_document_open(board, DOCBM_USER_ESCROW, &error);
  EXPECT(draft != NULL && error == NULL);
  char *bookmark = docbm_new_document_make_bookmark(draft, target, &error);
  EXPECT(bookmark != NULL && error == NULL);
  struct stat status;
  EXPECT(stat(board, &status) != 0 && errno == ENOENT);
  char contents[4096];
  snprintf(contents, sizeof contents, "board %s\n", bookmark);
  docbm_document *document = docbm_document_create(draft, contents, strlen(contents), &error);
  EXPECT(document != NULL && error == NULL);
  docbm_resolution *resolution = document ? docbm_resolve(document, bookmark, &error) : NULL;
  EXPECT(resolution && strcmp(docbm_resolution_path(resolution), target) == 0);
  EXPECT(resolution && docbm_resolution_is_stale(resolution) == 0);
  docbm_resolution_free(resolution);
  /* Created once: the same draft again finds the document there and leaves it. */
  EXPECT(docbm_document_create(draft, "other\n", 6, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_DOCUMENT_EXISTS);
  error = NULL;
  docbm_check_result *check = docbm_check(board, &error);
  EXPECT(check && docbm_check_result_verdict(check) == DOCBM_VERDICT_OK);
  docbm_check_result_free(check);
  /* Escrowed during the first save: a plain save's loss is put back. */
  plain_atomic_save(board, contents);
  docbm_repair_report *repaired = docbm_repair(board, &error);
  EXPECT(repaired && docbm_repair_report_action(repaired) == DOCBM_REPAIR_RESTORED);
  docbm_repair_report_free(repaired);
  docbm_document_close(document);
  docbm_free(bookmark);
  docbm_new_document_close(draft);

  /* The writer form: a folder document, created whole by the writer. */
  docbm_new_document *folder_draft = docbm_new_document_open(folder, DOCBM_NO_ESCROW, &error);
  char *inner = docbm_new_document_make_bookmark(folder_draft, target, &error);
  EXPECT(inner != NULL && error == NULL);
  docbm_document *folder_document =
    docbm_document_create_with_writer(folder_draft, write_folder, inner, &error);
  EXPECT(folder_document != NULL && error == NULL);
  EXPECT(stat(folder, &status) == 0 && S_ISDIR(status.st_mode));
  resolution = folder_document ? docbm_resolve(folder_document, inner, &error) : NULL;
  EXPECT(resolution && strcmp(docbm_resolution_path(resolution), target) == 0);
  docbm_resolution_free(resolution);
  /* Saved again: the writer's new folder is swapped in whole, with the folder's key, and
   * nothing of the old one is left beside it. */
  int beside = entry_count(scratch);
  EXPECT(folder_document &&
         docbm_replace_document_with_writer(folder_document, write_folder, "second\n", &error) == 0 && !error);
  char inside_path[4200], inside_text[64] = {0};
  snprintf(inside_path, sizeof inside_path, "%s/contents.txt", folder);
  FILE *inside = fopen(inside_path, "r");
  EXPECT(inside && fgets(inside_text, sizeof inside_text, inside) && strcmp(inside_text, "second\n") == 0);
  if (inside) fclose(inside);
  EXPECT(entry_count(scratch) == beside);
  resolution = folder_document ? docbm_resolve(folder_document, inner, &error) : NULL;
  EXPECT(resolution && !error && docbm_resolution_is_stale(resolution) == 0);
  docbm_resolution_free(resolution);
  docbm_document_close(folder_document);
  docbm_free(inner);
  docbm_new_document_close(folder_draft);

  /* A writer that fails creates nothing; arguments that are none are refused. */
  const char *failed = path_in(3, "never-made.txt");
  docbm_new_document *failing = docbm_new_document_open(failed, DOCBM_NO_ESCROW, &error);
  EXPECT(docbm_document_create_with_writer(failing, fail_writing, NULL, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_WRITER_FAILED);
  error = NULL;
  EXPECT(stat(failed, &status) != 0 && errno == ENOENT);
  docbm_new_document_close(failing);
  EXPECT(docbm_new_document_open(failed, (docbm_escrow_use)2, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  EXPECT(docbm_new_document_open("", DOCBM_NO_ESCROW, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  EXPECT(docbm_document_create(NULL, "x", 1, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  EXPECT(docbm_new_document_make_bookmark(NULL, target, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  docbm_new_document_close(NULL);

  char command[8400];
  snprintf(command, sizeof command, "rm -rf '%s'", folder);
  EXPECT(system(command) == 0);
  EXPECT(unlink(board) == 0 && unlink(target) == 0);
}

/* Save As: bookmarks re-anchored for the copy's folder resolve there unstale, the copy
 * carries the key (or, stripped, none), a text that is no bookmark is reported and kept in
 * its place, and a writer that fails leaves nothing at the destination. */
static void test_save_as(void) {
  docbm_error *error = NULL;
  const char *original = path_in(0, "save-as-board.txt");
  const char *target = path_in(1, "save-as-target.png");
  const char *folder = path_in(2, "save-as-copies");
  const char *copy_path = path_in(3, "save-as-copies/board.txt");
  const char *stripped_path = path_in(4, "save-as-copies/shared.txt");
  const char *never = path_in(5, "save-as-copies/never.txt");
  EXPECT(mkdir(folder, 0755) == 0);
  write_file(target, "target\n");
  write_file(original, "board\n");
  docbm_document *document = docbm_document_open(original, &error);
  char *bookmark = docbm_make_bookmark(document, target, &error);
  EXPECT(bookmark != NULL && error == NULL);

  const char *bookmarks[] = {bookmark, "garbage"};
  docbm_reanchored *results[2] = {NULL, NULL};
  EXPECT(docbm_reanchor(document, copy_path, bookmarks, 2, results, &error) == 1);
  EXPECT(results[0] && docbm_reanchored_outcome(results[0]) == DOCBM_REANCHOR_REANCHORED);
  EXPECT(results[0] && docbm_reanchored_code(results[0]) == 0 && !docbm_reanchored_message(results[0]));
  const char *reanchored = results[0] ? docbm_reanchored_bookmark(results[0]) : NULL;
  EXPECT(reanchored != NULL);
  EXPECT(results[1] && docbm_reanchored_outcome(results[1]) == DOCBM_REANCHOR_FAILED);
  EXPECT(results[1] && docbm_reanchored_code(results[1]) == DOCBM_CORRUPT);
  EXPECT(results[1] && docbm_reanchored_message(results[1]) && !docbm_reanchored_bookmark(results[1]));
  EXPECT(results[1] && docbm_reanchored_candidate_count(results[1]) == 0);
  EXPECT(results[1] && docbm_reanchored_candidate(results[1], 0) == NULL);
  EXPECT(strcmp(docbm_reanchor_outcome_name(DOCBM_REANCHOR_AMBIGUOUS), "ambiguous") == 0);
  EXPECT(docbm_reanchor_outcome_name((docbm_reanchor_outcome)9) == NULL);

  char contents[4096];
  snprintf(contents, sizeof contents, "board %s\n", reanchored ? reanchored : "");
  docbm_document *copy =
    docbm_save_copy(document, copy_path, contents, strlen(contents), DOCBM_COPY_CARRY_KEY, &error);
  EXPECT(copy != NULL && error == NULL);
  docbm_resolution *resolution = copy && reanchored ? docbm_resolve(copy, reanchored, &error) : NULL;
  EXPECT(resolution && strcmp(docbm_resolution_path(resolution), target) == 0);
  EXPECT(resolution && docbm_resolution_is_stale(resolution) == 0);
  docbm_resolution_free(resolution);
  /* The bookmark as the original stores it resolves from the copy, but stale. */
  resolution = copy ? docbm_resolve(copy, bookmark, &error) : NULL;
  EXPECT(resolution && docbm_resolution_is_stale(resolution) == 1);
  docbm_resolution_free(resolution);
  docbm_document_close(copy);

  /* A copy for someone else carries no key. */
  docbm_document *stripped =
    docbm_save_copy_with_writer(document, stripped_path, DOCBM_COPY_STRIP_KEY, write_hello, "shared\n", &error);
  EXPECT(stripped != NULL && error == NULL);
  EXPECT(stripped && docbm_resolve(stripped, bookmark, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_KEY_MISSING);
  error = NULL;
  docbm_document_close(stripped);

  /* A writer that fails leaves nothing; arguments that are none or not listed are refused. */
  struct stat status;
  EXPECT(docbm_save_copy_with_writer(document, never, DOCBM_COPY_CARRY_KEY, fail_writing, NULL, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_WRITER_FAILED);
  error = NULL;
  EXPECT(stat(never, &status) != 0 && errno == ENOENT);
  EXPECT(docbm_save_copy(document, never, "x", 1, (docbm_copy_key)2, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  EXPECT(docbm_save_copy(document, NULL, "x", 1, DOCBM_COPY_CARRY_KEY, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  EXPECT(docbm_save_copy_with_writer(document, never, DOCBM_COPY_CARRY_KEY, NULL, NULL, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  EXPECT(docbm_reanchor(document, NULL, bookmarks, 1, results, &error) == -1);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  EXPECT(stat(never, &status) != 0 && errno == ENOENT);

  docbm_reanchored_free(results[0]);
  docbm_reanchored_free(results[1]);
  docbm_reanchored_free(NULL);
  docbm_free(bookmark);
  docbm_document_close(document);
  EXPECT(unlink(copy_path) == 0 && unlink(stripped_path) == 0 && rmdir(folder) == 0);
  EXPECT(unlink(original) == 0 && unlink(target) == 0);
}

/* Adoption: a copy that travelled without its key lists its bookmark with the file its
 * recorded path names beside it; adopting it makes a new bookmark that resolves there, an
 * index past the list is refused with nothing stored. */
static void test_adoption(void) {
  docbm_error *error = NULL;
  const char *project = path_in(0, "adopt-project");
  const char *board = path_in(1, "adopt-project/board.txt");
  const char *cat = path_in(2, "adopt-project/cat.png");
  const char *copy = path_in(3, "adopt-copy");
  const char *copy_board = path_in(4, "adopt-copy/board.txt");
  const char *copy_cat = path_in(5, "adopt-copy/cat.png");
  EXPECT(mkdir(project, 0755) == 0 && mkdir(copy, 0755) == 0);
  write_file(cat, "cat\n");
  write_file(copy_cat, "cat\n");
  write_file(board, "board\n");
  docbm_document *original = docbm_document_open(board, &error);
  char *bookmark = docbm_make_bookmark(original, cat, &error);
  EXPECT(bookmark != NULL && error == NULL);
  char contents[4096];
  snprintf(contents, sizeof contents, "board %s\n", bookmark ? bookmark : "");
  write_file(copy_board, contents); /* copied without its attributes */

  docbm_document *document = docbm_document_open(copy_board, &error);
  docbm_adoption *adoption = docbm_adoption_list(document, &error);
  EXPECT(adoption != NULL && error == NULL);
  char real_cat[4096];
  EXPECT(realpath(copy_cat, real_cat) != NULL);
  EXPECT(adoption && docbm_adoption_count(adoption) == 1);
  EXPECT(adoption && bookmark && strcmp(docbm_adoption_bookmark(adoption, 0), bookmark) == 0);
  EXPECT(adoption && strlen(docbm_adoption_key(adoption, 0)) == 17);
  EXPECT(adoption && strcmp(docbm_adoption_recorded_path(adoption, 0), "cat.png") == 0);
  EXPECT(adoption && docbm_adoption_target(adoption, 0) && strcmp(docbm_adoption_target(adoption, 0), real_cat) == 0);
  EXPECT(adoption && docbm_adoption_target_is_folder(adoption, 0) == 0);
  EXPECT(adoption && docbm_adoption_needs_own_confirmation(adoption, 0) == 0);
  EXPECT(adoption && docbm_adoption_bookmark(adoption, 1) == NULL && docbm_adoption_target(adoption, 1) == NULL);

  char *made[1] = {NULL};
  size_t wrong[] = {1};
  EXPECT(docbm_adopt(document, adoption, wrong, 1, made, &error) == -1 && made[0] == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  EXPECT(docbm_adopt(document, NULL, wrong, 1, made, &error) == -1);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  size_t first[] = {0};
  EXPECT(docbm_adopt(document, adoption, first, 1, made, &error) == 1 && error == NULL);
  docbm_resolution *resolution = made[0] ? docbm_resolve(document, made[0], &error) : NULL;
  EXPECT(resolution && strcmp(docbm_resolution_path(resolution), real_cat) == 0);
  EXPECT(resolution && docbm_resolution_is_stale(resolution) == 0);
  docbm_resolution_free(resolution);
  EXPECT(docbm_adoption_list(NULL, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);

  docbm_free(made[0]);
  docbm_adoption_free(adoption);
  docbm_adoption_free(NULL);
  docbm_document_close(document);
  docbm_document_close(original);
  docbm_free(bookmark);
  EXPECT(unlink(board) == 0 && unlink(cat) == 0 && rmdir(project) == 0);
  EXPECT(unlink(copy_board) == 0 && unlink(copy_cat) == 0 && rmdir(copy) == 0);
}

/* Waits until the store's change descriptor is readable; fails the test after a minute
 * (a bound for a broken build, not a wait for time to pass). */
static int store_changed(const docbm_store *store) {
  struct pollfd watched = {.fd = docbm_store_change_descriptor(store), .events = POLLIN};
  return poll(&watched, 1, 60000) == 1 && (watched.revents & POLLIN);
}

/* The record under `key` in a fresh list of the store, copied into `path` (empty when no
 * record has it); returns its state, or -1. */
static int listed(docbm_store *store, const char *key, char *path, size_t size) {
  docbm_error *error = NULL;
  docbm_store_records *records = docbm_store_list(store, &error);
  EXPECT(records && !error);
  int state = -1;
  path[0] = '\0';
  for (size_t i = 0; records && i < docbm_store_records_count(records); i++) {
    const docbm_store_record *record = docbm_store_records_at(records, i);
    if (strcmp(docbm_store_record_key(record), key) == 0) {
      snprintf(path, size, "%s", docbm_store_record_path(record));
      state = (int)docbm_store_record_state(record);
    }
  }
  if (records) EXPECT(docbm_store_records_at(records, docbm_store_records_count(records)) == NULL);
  docbm_store_records_free(records);
  return state;
}

static void test_store(void) {
  docbm_error *error = NULL;
  const char *file = path_in(0, "store/recents.sqlite");
  const char *plan = path_in(1, "plan.md");
  const char *renamed = path_in(2, "plan-final.md");
  const char *later = path_in(3, "not-yet.md");
  write_file(plan, "plan\n");

  docbm_store *store = docbm_store_open(file, 0, &error);
  EXPECT(store && !error);
  if (!store) return;
  EXPECT(strstr(docbm_store_path(store), "store/recents.sqlite") != NULL);
  EXPECT(docbm_store_take_changes(store) == 0);

  /* A record with a bookmark, under its path when no key is given. */
  docbm_store_record *record = docbm_store_add(store, plan, NULL, &error);
  EXPECT(record && !error);
  if (record) {
    EXPECT(strcmp(docbm_store_record_key(record), plan) == 0);
    EXPECT(strcmp(docbm_store_record_path(record), plan) == 0);
    EXPECT(docbm_store_record_state(record) == DOCBM_RECORD_AVAILABLE);
    EXPECT(docbm_store_record_failure(record) == 0);
    EXPECT(docbm_store_record_has_bookmark(record) == 1);
    EXPECT(docbm_store_record_is_pinned(record) == 0);
    EXPECT(docbm_store_record_is_gone(record) == 0);
    EXPECT(docbm_store_record_is_in_trash(record) == 0);
    EXPECT(docbm_store_record_created(record) > 1700000000LL * 1000000000LL);
    EXPECT(docbm_store_record_last_used(record) == -1);
  }
  docbm_store_record_free(record);
  EXPECT(store_changed(store));
  EXPECT(docbm_store_take_changes(store) >= 1);
  EXPECT(access(file, F_OK) == 0);

  /* A path-only record, under a key of its own. */
  record = docbm_store_add_path_only(store, later, "later", &error);
  EXPECT(record && !error && docbm_store_record_state(record) == DOCBM_RECORD_UNKNOWN);
  EXPECT(record && docbm_store_record_has_bookmark(record) == 0);
  docbm_store_record_free(record);

  /* The target is renamed: resolving finds it, and the store keeps its new path. */
  EXPECT(rename(plan, renamed) == 0);
  record = docbm_store_resolve(store, plan, &error);
  EXPECT(record && !error);
  if (record) {
    EXPECT(strcmp(docbm_store_record_path(record), renamed) == 0);
    EXPECT(docbm_store_record_state(record) == DOCBM_RECORD_AVAILABLE);
  }
  docbm_store_record_free(record);

  record = docbm_store_set_pinned(store, plan, 1, &error);
  EXPECT(record && !error && docbm_store_record_is_pinned(record) == 1);
  docbm_store_record_free(record);
  record = docbm_store_mark_used(store, plan, &error);
  EXPECT(record && !error && docbm_store_record_last_used(record) >= docbm_store_record_created(record));
  EXPECT(record && strcmp(docbm_store_record_metadata(record), "{}") == 0);
  docbm_store_record_free(record);

  /* Metadata: any JSON value, given back with its object keys sorted; text that is not
   * JSON is refused and the record keeps what it had. */
  record = docbm_store_set_metadata(store, plan, "{\"title\": \"Plan\", \"line\": 12}", &error);
  EXPECT(record && !error && strcmp(docbm_store_record_metadata(record), "{\"line\":12,\"title\":\"Plan\"}") == 0);
  docbm_store_record_free(record);
  EXPECT(docbm_store_set_metadata(store, plan, "{not json", &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  EXPECT(docbm_store_set_metadata(store, plan, NULL, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  EXPECT(docbm_store_set_metadata(store, "nobody", "1", &error) == NULL);
  EXPECT_ERROR(error, DOCBM_NO_SUCH_KEY);
  error = NULL;
  record = docbm_store_resolve(store, plan, &error);
  EXPECT(record && strcmp(docbm_store_record_metadata(record), "{\"line\":12,\"title\":\"Plan\"}") == 0);
  docbm_store_record_free(record);

  /* A second store on the same file, as another window or process opens it, sees the
   * first one's records; its change reaches the first one's descriptor. */
  docbm_store *other = docbm_store_open(file, 0, &error);
  EXPECT(other && !error);
  char path[4096];
  EXPECT(other && listed(other, plan, path, sizeof path) == DOCBM_RECORD_AVAILABLE);
  EXPECT(strcmp(path, renamed) == 0);
  docbm_store_take_changes(store);
  EXPECT(other && docbm_store_forget(other, "later", &error) == 1 && !error);
  EXPECT(store_changed(store));
  EXPECT(docbm_store_take_changes(store) >= 1);
  EXPECT(listed(store, "later", path, sizeof path) == -1);
  docbm_store_close(other);

  /* The target is deleted: a refresh counts the failure, and the record says why. */
  EXPECT(unlink(renamed) == 0);
  EXPECT(docbm_store_refresh(store, &error) == 1 && !error);
  docbm_store_records *records = docbm_store_list(store, &error);
  EXPECT(records && docbm_store_records_count(records) == 1);
  if (records && docbm_store_records_count(records) == 1) {
    const docbm_store_record *gone = docbm_store_records_at(records, 0);
    EXPECT(docbm_store_record_state(gone) == DOCBM_RECORD_UNAVAILABLE);
    docbm_code failure = docbm_store_record_failure(gone);
    EXPECT(failure == DOCBM_MISSING || failure == DOCBM_NOT_FOUND_NEARBY);
    EXPECT(docbm_store_record_is_pinned(gone) == 1);
  }
  docbm_store_records_free(records);
  EXPECT(strcmp(docbm_record_state_name(DOCBM_RECORD_UNAVAILABLE), "unavailable") == 0);
  EXPECT(docbm_record_state_name((docbm_record_state)9) == NULL);

  /* Unknown keys: forget says 0, the others fail with the store's code. */
  EXPECT(docbm_store_forget(store, "nobody", &error) == 0 && !error);
  EXPECT(docbm_store_resolve(store, "nobody", &error) == NULL);
  EXPECT(error && strcmp(docbm_code_name(docbm_error_code(error)), "noSuchKey") == 0);
  EXPECT(error && docbm_error_recommendation(error) == DOCBM_RECOMMEND_NONE);
  EXPECT_ERROR(error, DOCBM_NO_SUCH_KEY);
  error = NULL;
  EXPECT(docbm_store_set_pinned(store, "nobody", 1, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_NO_SUCH_KEY);
  error = NULL;

  /* Arguments: NULL store, empty key, NULL target. */
  EXPECT(docbm_store_add(NULL, plan, NULL, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  EXPECT(docbm_store_add(store, NULL, "k", &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  EXPECT(docbm_store_mark_used(store, "", &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  EXPECT(docbm_store_forget(store, "caf\xe9", &error) == -1);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  EXPECT(docbm_store_forget(NULL, "k", &error) == -1);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  EXPECT(docbm_store_open(NULL, 0, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  docbm_store_close(store);
  docbm_store_close(NULL);

  /* Another program's file is refused and left as it is; so is a folder. */
  const char *notes = path_in(4, "notes.txt");
  write_file(notes, "not a store\n");
  EXPECT(docbm_store_open(notes, 0, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_STORE_CORRUPT);
  error = NULL;
  char kept[32] = "";
  FILE *reread = fopen(notes, "r");
  EXPECT(reread && fgets(kept, sizeof kept, reread) && strcmp(kept, "not a store\n") == 0);
  if (reread) fclose(reread);
  EXPECT(docbm_store_open(scratch, 0, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_NOT_A_STORE);
  error = NULL;

  /* A name that is not UTF-8, added under its path: the key is the path escaped. */
  docbm_store *named = docbm_store_open(path_in(0, "store/named.sqlite"), 0, &error);
  const char *latin = path_in(6, "caf\xe9.txt");
  write_file(latin, "latin-1 name\n");
  record = named ? docbm_store_add(named, latin, NULL, &error) : NULL;
  EXPECT(record && !error);
  if (record) {
    EXPECT(strstr(docbm_store_record_key(record), "caf\\xe9.txt") != NULL);
    EXPECT(strcmp(docbm_store_record_path(record), latin) == 0);
    docbm_store_record *again = docbm_store_resolve(named, docbm_store_record_key(record), &error);
    EXPECT(again && !error && strcmp(docbm_store_record_path(again), latin) == 0);
    docbm_store_record_free(again);
  }
  docbm_store_record_free(record);
  docbm_store_close(named);

  /* A recent-documents store keeps the most recently used, up to its limit. */
  docbm_store *recents = docbm_store_open(path_in(0, "store/limited.sqlite"), 2, &error);
  EXPECT(recents && !error);
  const char *names[3] = {"one.txt", "two.txt", "three.txt"};
  for (int i = 0; recents && i < 3; i++) {
    write_file(path_in(5, names[i]), names[i]);
    docbm_store_record_free(docbm_store_add(recents, path_in(5, names[i]), names[i], &error));
    EXPECT(!error);
  }
  if (recents) {
    records = docbm_store_list(recents, &error);
    EXPECT(records && docbm_store_records_count(records) == 2);
    if (records && docbm_store_records_count(records) == 2)
      EXPECT(strcmp(docbm_store_record_key(docbm_store_records_at(records, 0)), "three.txt") == 0);
    docbm_store_records_free(records);
  }
  docbm_store_close(recents);
}

/* Reads the watcher's events until one of `kind` arrives (waiting on its descriptor, for a
 * minute at most); returns it, or NULL. */
static docbm_watch_event *wait_for_event(docbm_watcher *watcher, docbm_event_kind kind) {
  for (;;) {
    docbm_watch_event *event;
    while ((event = docbm_watcher_next_event(watcher)) != NULL) {
      if (docbm_watch_event_kind(event) == kind) return event;
      docbm_watch_event_free(event);
    }
    struct pollfd watched = {.fd = docbm_watcher_descriptor(watcher), .events = POLLIN};
    if (poll(&watched, 1, 60000) != 1) {
      fprintf(stderr, "no %s event came\n", docbm_event_kind_name(kind));
      return NULL;
    }
  }
}

static void test_watcher(void) {
  docbm_error *error = NULL;
  const char *folder = path_in(0, "watched");
  const char *notes = path_in(1, "watched/notes.txt");
  const char *moved = path_in(2, "watched/renamed.txt");
  EXPECT(mkdir(folder, 0755) == 0);
  write_file(notes, "notes\n");
  write_file(path_in(3, "watched/picture.png"), "png");
  docbm_document *document = docbm_document_open(notes, &error);
  char *bookmark = document ? docbm_make_bookmark(document, path_in(3, "watched/picture.png"), &error) : NULL;
  EXPECT(bookmark && !error);
  docbm_free(bookmark);
  docbm_document_close(document);

  const char *folders[] = {folder};
  docbm_watcher *watcher = docbm_watcher_watch_folders(folders, 1, 0, &error);
  EXPECT(watcher && !error);
  if (!watcher) return;
  EXPECT(docbm_watcher_next_event(watcher) == NULL);

  /* Renamed: the same document at a new path. */
  EXPECT(rename(notes, moved) == 0);
  docbm_watch_event *event = wait_for_event(watcher, DOCBM_EVENT_MOVED);
  EXPECT(event != NULL);
  if (event) {
    EXPECT(strcmp(docbm_watch_event_path(event), moved) == 0);
    EXPECT(strcmp(docbm_watch_event_old_path(event), notes) == 0);
    EXPECT(docbm_watch_event_key(event) != NULL);
    EXPECT(strlen(docbm_watch_event_message(event)) > 0);
    EXPECT(docbm_watch_event_is_own_save(event) == 0);
  }
  docbm_watch_event_free(event);

  /* Another program's atomic save: replaced, and the key is lost. */
  plain_atomic_save(moved, "edited elsewhere\n");
  event = wait_for_event(watcher, DOCBM_EVENT_KEY_LOST);
  EXPECT(event && strcmp(docbm_watch_event_path(event), moved) == 0 && docbm_watch_event_key(event));
  docbm_watch_event_free(event);
  EXPECT(docbm_watcher_has_nothing_left(watcher) == 0);
  docbm_watcher_close(watcher);
  docbm_watcher_close(NULL);

  EXPECT(strcmp(docbm_event_kind_name(DOCBM_EVENT_MOVED_OUT), "movedOut") == 0);
  EXPECT(docbm_event_kind_name((docbm_event_kind)0) == NULL);

  /* Arguments: no paths, a missing folder, flags the header does not list. */
  EXPECT(docbm_watcher_watch_folders(NULL, 0, 0, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  EXPECT(docbm_watcher_watch_folders(folders, 1, 64, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  const char *missing[] = {path_in(4, "no-such-folder")};
  EXPECT(docbm_watcher_watch_folders(missing, 1, 0, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_NOT_FOUND);
  error = NULL;
  const char *documents[] = {moved};
  watcher = docbm_watcher_follow_documents(documents, 1, DOCBM_WATCH_NOT_RECURSIVE, &error);
  EXPECT(watcher && !error);
  docbm_watcher_close(watcher);
}

/* A resolve run on another thread, for a held resolve. */
struct held_resolve {
  const docbm_document *document;
  const char *bookmark;
  docbm_resolution *resolution;
};

static void *resolve_on_thread(void *argument) {
  struct held_resolve *held = argument;
  held->resolution = docbm_resolve(held->document, held->bookmark, NULL);
  return NULL;
}

/* Faults for an app's own tests: a save that fails at its step with the real code and
 * leaves the document, a crash before the rename that leaves the new version until the
 * fault ends, resolves that fail (narrowed to targets) or wait at a gate, store reads that
 * fail; overlapping faults of one kind are refused. */
static void test_faults(void) {
  docbm_error *error = NULL;
  const char *folder = path_in(0, "faults");
  const char *document_path = path_in(1, "faults/board.txt");
  const char *target = path_in(2, "faults/cat.png");
  const char *other_target = path_in(3, "faults-elsewhere.png");
  const char *store_path = path_in(4, "faults/recents.sqlite");
  const char *inside = path_in(5, "faults/inner");
  EXPECT(mkdir(folder, 0755) == 0);
  write_file(document_path, "board\n");
  write_file(target, "cat\n");
  write_file(other_target, "elsewhere\n");
  docbm_document *document = docbm_document_open(document_path, &error);
  char *bookmark = docbm_make_bookmark(document, target, &error);
  char *other_bookmark = docbm_make_bookmark(document, other_target, &error);
  EXPECT(document && bookmark && other_bookmark && !error);
  if (!document || !bookmark || !other_bookmark) return;

  EXPECT(strcmp(docbm_save_step_name(DOCBM_STEP_COPY_ATTRIBUTES), "copyAttributes") == 0);
  EXPECT(docbm_save_step_name((docbm_save_step)12) == NULL);

  /* A full disk while writing: the save fails as the real one would; the next succeeds. */
  docbm_test_fault *fault = docbm_test_fail_save(folder, DOCBM_STEP_WRITE, ENOSPC, &error);
  EXPECT(fault && !error);
  EXPECT(docbm_test_fail_save(inside, DOCBM_STEP_SWAP, EIO, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  EXPECT(docbm_test_crash_save(NULL, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  EXPECT(docbm_replace_document(document, "lost\n", 5, &error) == -1);
  EXPECT(error && docbm_error_code(error) == DOCBM_NO_SPACE);
  EXPECT(error && docbm_error_errno(error) == ENOSPC);
  EXPECT(error && docbm_error_step(error) && strcmp(docbm_error_step(error), "write") == 0);
  docbm_error_free(error);
  error = NULL;
  char contents[64] = {0};
  FILE *file = fopen(document_path, "r");
  EXPECT(file && fgets(contents, sizeof contents, file) && strcmp(contents, "board\n") == 0);
  if (file) fclose(file);
  EXPECT(docbm_replace_document(document, "saved\n", 6, &error) == 0 && !error);
  docbm_test_fault_end(fault);
  docbm_test_fault_end(NULL);
  EXPECT(docbm_test_fail_save(folder, (docbm_save_step)0, EIO, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  EXPECT(docbm_test_fail_save(folder, DOCBM_STEP_WRITE, 0, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;

  /* A crash before the rename leaves the new version beside the document until the end. */
  int entries = entry_count(folder);
  fault = docbm_test_crash_save(folder, &error);
  EXPECT(fault && !error);
  EXPECT(docbm_replace_document(document, "crashed\n", 8, &error) == -1);
  EXPECT(error && docbm_error_code(error) == DOCBM_IO_ERROR);
  EXPECT(error && docbm_error_step(error) && strcmp(docbm_error_step(error), "swap") == 0);
  docbm_error_free(error);
  error = NULL;
  EXPECT(entry_count(folder) == entries + 1);
  docbm_test_fault_end(fault);
  EXPECT(entry_count(folder) == entries);

  /* Missing targets: the real error, for the targets in the fault's folder only. */
  fault = docbm_test_fail_resolves(folder, DOCBM_MISSING, folder, &error);
  EXPECT(fault && !error);
  EXPECT(docbm_test_hold_resolves(inside, NULL, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  EXPECT(docbm_resolve(document, bookmark, &error) == NULL);
  EXPECT(error && docbm_error_code(error) == DOCBM_MISSING);
  EXPECT(error && docbm_error_recommendation(error) == DOCBM_RECOMMEND_FORGET);
  EXPECT(error && docbm_error_last_known_path(error) && strcmp(docbm_error_last_known_path(error), target) == 0);
  docbm_error_free(error);
  error = NULL;
  docbm_resolution *resolution = docbm_resolve(document, other_bookmark, &error);
  EXPECT(resolution && !error && strcmp(docbm_resolution_path(resolution), other_target) == 0);
  docbm_resolution_free(resolution);
  EXPECT(docbm_test_fault_held_count(fault) == 0);
  docbm_test_fault_wait_until_held(fault, 1); /* returns at once: not a gate */
  docbm_test_fault_end(fault);
  resolution = docbm_resolve(document, bookmark, &error);
  EXPECT(resolution && !error);
  docbm_resolution_free(resolution);
  EXPECT(docbm_test_fail_resolves(folder, DOCBM_TAMPERED, NULL, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  EXPECT(docbm_test_fail_resolves(NULL, DOCBM_MISSING, NULL, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;

  /* A slow resolve: held on its thread until the test opens the gate. */
  fault = docbm_test_hold_resolves(folder, NULL, &error);
  EXPECT(fault && !error);
  struct held_resolve held = {document, bookmark, NULL};
  pthread_t thread;
  EXPECT(pthread_create(&thread, NULL, resolve_on_thread, &held) == 0);
  docbm_test_fault_wait_until_held(fault, 1);
  EXPECT(docbm_test_fault_held_count(fault) == 1);
  EXPECT(held.resolution == NULL);
  docbm_test_fault_open(fault);
  EXPECT(pthread_join(thread, NULL) == 0);
  EXPECT(held.resolution && strcmp(docbm_resolution_path(held.resolution), target) == 0);
  docbm_resolution_free(held.resolution);
  docbm_test_fault_end(fault);

  /* An unreadable store: its open fails as the real read would. */
  docbm_store *store = docbm_store_open(store_path, 0, &error);
  EXPECT(store && !error);
  docbm_store_close(store);
  fault = docbm_test_fail_store_reads(folder, EIO, &error);
  EXPECT(fault && !error);
  EXPECT(docbm_store_open(store_path, 0, &error) == NULL);
  EXPECT(error && docbm_error_code(error) == DOCBM_IO_ERROR);
  EXPECT(error && docbm_error_errno(error) == EIO);
  docbm_error_free(error);
  error = NULL;
  docbm_test_fault_end(fault);
  store = docbm_store_open(store_path, 0, &error);
  EXPECT(store && !error);
  docbm_store_close(store);
  EXPECT(docbm_test_fail_store_reads(folder, -1, &error) == NULL);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;

  docbm_free(bookmark);
  docbm_free(other_bookmark);
  docbm_document_close(document);
}

/* The user's escrow from C: listed with each key's documents; exported with mode 0600 and
 * never over an existing file unless asked, nor through a FIFO; imported into another
 * escrow once (a second import adds nothing); an export others can read, or a file that
 * is not one, is refused. */
static void test_escrow_transfer(void) {
  docbm_error *error = NULL;
  const char *document_path = path_in(0, "transfer-board.txt");
  const char *target = path_in(1, "transfer-cat.png");
  const char *export_path = path_in(2, "transfer.escrow");
  const char *fifo = path_in(3, "transfer.fifo");
  const char *other = path_in(4, "transfer-other-escrow");
  const char *garbage = path_in(5, "transfer-garbage.escrow");
  const char *own = getenv("DOCBM_ESCROW_DIR");
  char own_escrow[4096];
  snprintf(own_escrow, sizeof own_escrow, "%s", own ? own : "");
  write_file(document_path, "board\n");
  write_file(target, "cat\n");
  docbm_document *document = docbm_document_open(document_path, &error);
  char *bookmark = docbm_make_bookmark(document, target, &error);
  EXPECT(bookmark && !error);
  docbm_free(bookmark);
  docbm_document_close(document);

  /* The key is listed with its document. */
  docbm_escrow_entries *entries = docbm_escrow_list(&error);
  EXPECT(entries && !error);
  size_t count = entries ? docbm_escrow_entries_count(entries) : 0;
  int found = 0;
  for (size_t index = 0; index < count; index++) {
    EXPECT(docbm_escrow_entry_key(entries, index) != NULL);
    EXPECT(docbm_escrow_entry_created(entries, index) > 0);
    for (size_t at = 0; at < docbm_escrow_entry_document_count(entries, index); at++) {
      const char *path = docbm_escrow_entry_document_path(entries, index, at);
      if (path && strcmp(path, document_path) == 0) {
        found = 1;
        EXPECT(strcmp(docbm_escrow_entry_document_origin(entries, index, at), "bookmarked") == 0);
        EXPECT(docbm_escrow_entry_document_confirmed(entries, index, at) > 0);
      }
    }
  }
  EXPECT(found);
  if (entries) {
    EXPECT(docbm_escrow_entry_key(entries, count) == NULL);
    EXPECT(docbm_escrow_entry_created(entries, count) == -1);
    EXPECT(docbm_escrow_entry_document_count(entries, count) == 0);
    EXPECT(docbm_escrow_entry_document_path(entries, 0, 1000) == NULL);
    EXPECT(docbm_escrow_entry_document_origin(entries, count, 0) == NULL);
    EXPECT(docbm_escrow_entry_document_confirmed(entries, count, 0) == -1);
  }
  docbm_escrow_entries_free(entries);
  docbm_escrow_entries_free(NULL);

  /* Exported for another machine: a file of the user's alone, never over one unasked. */
  size_t keys = 0, documents = 0, held = 99;
  EXPECT(docbm_escrow_export(export_path, 0, &keys, &documents, &error) == 0 && !error);
  EXPECT(keys == count && documents > 0);
  struct stat status;
  EXPECT(stat(export_path, &status) == 0 && (status.st_mode & 07777) == 0600);
  EXPECT(docbm_escrow_export(export_path, 0, NULL, NULL, &error) == -1);
  EXPECT_ERROR(error, DOCBM_DOCUMENT_EXISTS);
  error = NULL;
  EXPECT(docbm_escrow_export(export_path, 1, NULL, NULL, &error) == 0 && !error);
  EXPECT(mkfifo(fifo, 0600) == 0);
  EXPECT(docbm_escrow_export(fifo, 1, NULL, NULL, &error) == -1);
  EXPECT_ERROR(error, DOCBM_UNSUPPORTED_FILE_TYPE);
  error = NULL;
  EXPECT(docbm_escrow_export(NULL, 0, NULL, NULL, &error) == -1);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;

  /* Another machine's escrow: empty, nothing to export; the import brings every key once. */
  EXPECT(mkdir(other, 0700) == 0 && setenv("DOCBM_ESCROW_DIR", other, 1) == 0);
  entries = docbm_escrow_list(&error);
  EXPECT(entries && !error && docbm_escrow_entries_count(entries) == 0);
  docbm_escrow_entries_free(entries);
  EXPECT(docbm_escrow_export(garbage, 0, NULL, NULL, &error) == -1);
  EXPECT_ERROR(error, DOCBM_NOT_FOUND);
  error = NULL;
  EXPECT(docbm_escrow_import(export_path, &keys, &documents, &held, &error) == 0 && !error);
  EXPECT(keys == count && documents > 0 && held == 0);
  EXPECT(docbm_escrow_import(export_path, &keys, NULL, &held, &error) == 0 && !error);
  EXPECT(keys == 0 && held == count);
  entries = docbm_escrow_list(&error);
  EXPECT(entries && docbm_escrow_entries_count(entries) == count);
  docbm_escrow_entries_free(entries);

  /* Refused: an export others can read, a file that is not one, a path with nothing. */
  EXPECT(chmod(export_path, 0644) == 0);
  EXPECT(docbm_escrow_import(export_path, NULL, NULL, NULL, &error) == -1);
  EXPECT_ERROR(error, DOCBM_ESCROW_UNTRUSTED);
  error = NULL;
  write_file(garbage, "not an export\n");
  EXPECT(chmod(garbage, 0600) == 0);
  EXPECT(docbm_escrow_import(garbage, NULL, NULL, NULL, &error) == -1);
  EXPECT_ERROR(error, DOCBM_ESCROW_DAMAGED);
  error = NULL;
  EXPECT(docbm_escrow_import(path_in(6, "transfer-none.escrow"), NULL, NULL, NULL, &error) == -1);
  EXPECT_ERROR(error, DOCBM_NOT_FOUND);
  error = NULL;

  EXPECT(setenv("DOCBM_ESCROW_DIR", own_escrow, 1) == 0);
  EXPECT(unlink(export_path) == 0 && unlink(fifo) == 0 && unlink(garbage) == 0);
  EXPECT(unlink(document_path) == 0 && unlink(target) == 0);
}

/* A tree check visits each document with its path and verdict: one that lost its key,
 * one that is fine, one without bookmarks; a file given as the root is a tree of one. */
struct tree_visit {
  int documents, key_lost, ok;
  char lost_path[4096];
};

static void visit_check(const docbm_check_result *result, void *context) {
  struct tree_visit *visit = context;
  visit->documents++;
  if (docbm_check_result_verdict(result) == DOCBM_VERDICT_KEY_LOST) {
    visit->key_lost++;
    snprintf(visit->lost_path, sizeof visit->lost_path, "%s", docbm_check_result_path(result));
  }
  if (docbm_check_result_verdict(result) == DOCBM_VERDICT_OK) visit->ok++;
}

static void test_check_tree(void) {
  docbm_error *error = NULL;
  const char *tree = path_in(0, "tree");
  const char *inner = path_in(1, "tree/inner");
  const char *kept = path_in(2, "tree/kept.txt");
  const char *lost = path_in(3, "tree/inner/lost.txt");
  const char *plain = path_in(4, "tree/plain.txt");
  const char *target = path_in(5, "tree/target.png");
  EXPECT(mkdir(tree, 0755) == 0 && mkdir(inner, 0755) == 0);
  write_file(target, "png\n");
  write_file(plain, "nothing\n");
  const char *documents[] = {kept, lost};
  char *bookmarks[2] = {NULL, NULL};
  for (int index = 0; index < 2; index++) {
    write_file(documents[index], "doc\n");
    docbm_document *document = docbm_document_open(documents[index], &error);
    bookmarks[index] = docbm_make_bookmark(document, target, &error);
    EXPECT(bookmarks[index] && !error);
    if (bookmarks[index]) docbm_replace_document(document, bookmarks[index], strlen(bookmarks[index]), &error);
    docbm_document_close(document);
  }
  /* Another program's plain save of the same text: the bookmark stays, the key goes. */
  if (bookmarks[1]) plain_atomic_save(lost, bookmarks[1]);
  docbm_free(bookmarks[0]);
  docbm_free(bookmarks[1]);
  docbm_check_result *single = docbm_check(kept, &error);
  EXPECT(single && strcmp(docbm_check_result_path(single), kept) == 0);
  docbm_check_result_free(single);

  struct tree_visit visit = {0};
  size_t unreadable = 99;
  long long checked = docbm_check_tree(tree, visit_check, &visit, &unreadable, &error);
  EXPECT(checked == 4 && visit.documents == 4 && unreadable == 0 && !error);
  EXPECT(visit.ok == 1 && visit.key_lost == 1 && strcmp(visit.lost_path, lost) == 0);
  struct tree_visit one = {0};
  EXPECT(docbm_check_tree(kept, visit_check, &one, NULL, &error) == 1 && one.ok == 1);
  EXPECT(docbm_check_tree(NULL, visit_check, &one, NULL, &error) == -1);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  EXPECT(docbm_check_tree(tree, NULL, NULL, NULL, &error) == -1);
  EXPECT_ERROR(error, DOCBM_INVALID_ARGUMENT);
  error = NULL;
  EXPECT(unlink(kept) == 0 && unlink(lost) == 0 && unlink(plain) == 0 && unlink(target) == 0);
  EXPECT(rmdir(inner) == 0 && rmdir(tree) == 0);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s SCRATCH_FOLDER\n", argv[0]);
    return 2;
  }
  scratch = argv[1];
  /* The escrow lives in the scratch folder, never in the user's own. */
  const char *escrow = path_in(0, "escrow");
  if (mkdir(escrow, 0700) != 0 || setenv("DOCBM_ESCROW_DIR", escrow, 1) != 0) {
    perror(escrow);
    return 2;
  }
  test_names();
  test_invalid_arguments();
  test_make_resolve_save_check_repair();
  test_read_only_document();
  test_escrow_refusals();
  test_lint();
  test_names_that_are_not_utf8();
  test_search_reach();
  test_escrow_use();
  test_relink();
  test_new_document();
  test_save_as();
  test_adoption();
  test_store();
  test_watcher();
  test_faults();
  test_escrow_transfer();
  test_check_tree();
  if (failures) {
    fprintf(stderr, "%d expectation(s) failed\n", failures);
    return 1;
  }
  printf("libdocbm C tests passed\n");
  return 0;
}
