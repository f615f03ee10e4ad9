/*
 * A document editor's use of libdocbm, in C: a notes file that links to a picture.
 *
 *   1. links the picture: a bookmark, stored as a line of the document;
 *   2. saves the document with docbm_replace_document(), which keeps its key;
 *   3. the picture is renamed: opening the document still finds it, and stores the
 *      refreshed bookmark with the next save;
 *   4. another program saves the document without its key (a plain atomic save): opening
 *      says so, docbm_check() names the verdict, and docbm_repair() puts the key back.
 *
 * Usage: c-editor FOLDER (a folder of yours, on a filesystem with user xattrs).
 * Build: cc editor.c $(pkg-config --cflags --libs docbm) -o c-editor
 */
#define _POSIX_C_SOURCE 200809L
#include <docbm.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Prints a failure and releases it. */
static void report(const char *what, docbm_error *error) {
  fprintf(stderr, "%s: %s (recommendation: %s)\n", what, error ? docbm_error_description(error) : "failed",
          error ? docbm_recommendation_name(docbm_error_recommendation(error)) : "none");
  docbm_error_free(error);
}

/* Saves the document's text: a title line and the bookmark line. */
static int save(docbm_document *document, const char *bookmark) {
  char text[4096];
  int length = snprintf(text, sizeof text, "My notes\npicture: %s\n", bookmark);
  docbm_error *error = NULL;
  if (docbm_replace_document(document, text, (size_t)length, &error) != 0) {
    report("save", error);
    return -1;
  }
  return 0;
}

/* Opens the picture link as an editor does when it loads the document. Returns the
 * bookmark to keep (the refreshed one when it was stale), for the caller to free. */
static char *open_link(docbm_document *document, const char *bookmark) {
  docbm_error *error = NULL;
  docbm_resolution *resolution = docbm_resolve(document, bookmark, &error);
  if (!resolution) {
    if (docbm_error_code(error) == DOCBM_KEY_MISSING)
      printf("the document lost its key: a program saved it without it\n");
    report("open link", error);
    return NULL;
  }
  printf("picture: %s%s\n", docbm_resolution_path(resolution),
         docbm_resolution_is_stale(resolution) ? " (moved: the link is refreshed)" : "");
  const char *refreshed = docbm_resolution_refreshed(resolution);
  char *kept = strdup(refreshed ? refreshed : bookmark);
  docbm_resolution_free(resolution);
  return kept;
}

static int write_text(const char *path, const char *text) {
  FILE *file = fopen(path, "w");
  if (!file) return -1;
  fputs(text, file);
  return fclose(file);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s FOLDER\n", argv[0]);
    return 2;
  }
  char notes[4096], picture[4096], renamed[4096], other[4200];
  snprintf(notes, sizeof notes, "%s/notes.txt", argv[1]);
  snprintf(picture, sizeof picture, "%s/picture.png", argv[1]);
  snprintf(renamed, sizeof renamed, "%s/holiday.png", argv[1]);
  snprintf(other, sizeof other, "%s.other-save", notes);
  if (write_text(picture, "png\n") != 0) {
    perror(picture);
    return 1;
  }
  printf("libdocbm %s\n", docbm_version());

  docbm_error *error = NULL;
  docbm_document *document = docbm_document_open(notes, &error);
  if (!document) {
    report("open", error);
    return 1;
  }
  /* 1 and 2: link the picture, save. The first save creates the document. */
  if (write_text(notes, "My notes\n") != 0) return 1;
  char *bookmark = docbm_make_bookmark(document, picture, &error);
  if (!bookmark) {
    report("link picture", error);
    return 1;
  }
  if (save(document, bookmark) != 0) return 1;
  printf("saved %s with a link to %s\n", notes, picture);

  /* 3: the picture is renamed; the link follows, and the next save stores it refreshed. */
  if (rename(picture, renamed) != 0) return 1;
  char *kept = open_link(document, bookmark);
  if (!kept) return 1;
  docbm_free(bookmark);
  if (save(document, kept) != 0) return 1;

  /* 4: another program's plain atomic save drops the key. */
  char contents[4096];
  snprintf(contents, sizeof contents, "My notes, edited elsewhere\npicture: %s\n", kept);
  if (write_text(other, contents) != 0 || rename(other, notes) != 0) return 1;
  char *lost = open_link(document, kept);
  if (lost) {
    fprintf(stderr, "expected the lost key to be reported\n");
    return 1;
  }
  docbm_check_result *check = docbm_check(notes, &error);
  if (!check) {
    report("check", error);
    return 1;
  }
  printf("check: %s: %s\n", docbm_verdict_name(docbm_check_result_verdict(check)),
         docbm_check_result_message(check));
  docbm_check_result_free(check);
  docbm_repair_report *repair = docbm_repair(notes, &error);
  if (!repair) {
    report("repair", error);
    return 1;
  }
  int restored = docbm_repair_report_action(repair) == DOCBM_REPAIR_RESTORED;
  printf("repair: %s\n", docbm_repair_report_message(repair));
  docbm_repair_report_free(repair);
  char *again = restored ? open_link(document, kept) : NULL;
  int status = again ? 0 : 1;
  free(again);
  free(kept);
  docbm_document_close(document);
  return status;
}
