/*
 * A document editor's use of libdocbm, in C: a notes file that links to a picture.
 *
 *   1. creates the notes: the link (a bookmark) is made before the first save, and the file
 *      is created with the key that signed it; the notes go on the editor's recent files
 *      (a store), and a watcher follows them;
 *   2. the picture is renamed: opening the notes still finds it, and the next save stores
 *      the refreshed bookmark (docbm_replace_document() keeps the document's key);
 *   3. Save As into another folder: the link is made anew for the copy's folder, then the
 *      copy is saved with the key;
 *   4. the notes are renamed: the watcher says so, and the recent files follow them;
 *   5. another program saves the notes without the key (a plain atomic save): the watcher
 *      says the key was lost, opening says so, docbm_check() names the verdict, and
 *      docbm_repair() puts the key back.
 *
 * Usage: c-editor FOLDER (a folder of yours, on a filesystem with user xattrs).
 * Build: cc editor.c $(pkg-config --cflags --libs docbm) -o c-editor
 */
#define _POSIX_C_SOURCE 200809L
#include <docbm.h>

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Prints a failure and releases it. */
static void report(const char *what, docbm_error *error) {
  fprintf(stderr, "%s: %s (recommendation: %s)\n", what, error ? docbm_error_description(error) : "failed",
          error ? docbm_recommendation_name(docbm_error_recommendation(error)) : "none");
  docbm_error_free(error);
}

/* The document's text: a title line and the bookmark line. */
static int contents(char *text, size_t size, const char *bookmark) {
  return snprintf(text, size, "My notes\npicture: %s\n", bookmark);
}

/* Opens the picture link as an editor does when it loads the document. Returns the
 * bookmark to keep (the refreshed one when it was stale), for the caller to free. */
static char *open_link(const docbm_document *document, const char *bookmark) {
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

/* Waits for the watcher's next event of `kind`, printing the events on the way; an
 * editor's main loop would be woken by the watcher's descriptor instead. */
static int wait_for(docbm_watcher *watcher, docbm_event_kind kind) {
  for (int waits = 0; waits < 300; waits++) {
    for (docbm_watch_event *event; (event = docbm_watcher_next_event(watcher)) != NULL;) {
      int found = docbm_watch_event_kind(event) == kind;
      printf("watcher: %s: %s\n", docbm_event_kind_name(docbm_watch_event_kind(event)),
             docbm_watch_event_message(event));
      docbm_watch_event_free(event);
      if (found) return 0;
    }
    struct pollfd ready = {.fd = docbm_watcher_descriptor(watcher), .events = POLLIN};
    poll(&ready, 1, 100);
  }
  fprintf(stderr, "no %s event came\n", docbm_event_kind_name(kind));
  return -1;
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
  char notes[4096], picture[4096], moved_picture[4096], copies[4096], copy_path[4200], final_notes[4096],
    other[4200], recents_path[4096], text[8192];
  snprintf(notes, sizeof notes, "%s/notes.txt", argv[1]);
  snprintf(picture, sizeof picture, "%s/picture.png", argv[1]);
  snprintf(moved_picture, sizeof moved_picture, "%s/holiday.png", argv[1]);
  snprintf(copies, sizeof copies, "%s/copies", argv[1]);
  snprintf(copy_path, sizeof copy_path, "%s/notes.txt", copies);
  snprintf(final_notes, sizeof final_notes, "%s/notes-final.txt", argv[1]);
  snprintf(other, sizeof other, "%s.other-save", final_notes);
  snprintf(recents_path, sizeof recents_path, "%s/recents.sqlite", argv[1]);
  if (write_text(picture, "png\n") != 0 || mkdir(copies, 0755) != 0) {
    perror(argv[1]);
    return 1;
  }
  printf("libdocbm %s\n", docbm_version());
  docbm_error *error = NULL;

  /* 1: a new document, its link made before the first save; on the recent files; followed. */
  docbm_new_document *draft = docbm_new_document_open(notes, DOCBM_USER_ESCROW, &error);
  char *bookmark = draft ? docbm_new_document_make_bookmark(draft, picture, &error) : NULL;
  int length = bookmark ? contents(text, sizeof text, bookmark) : 0;
  docbm_document *document = bookmark ? docbm_document_create(draft, text, (size_t)length, &error) : NULL;
  docbm_new_document_close(draft);
  if (!document) {
    report("create the notes", error);
    return 1;
  }
  printf("created %s with a link to %s\n", notes, picture);
  docbm_store *recents = docbm_store_open(recents_path, 10, &error);
  docbm_store_record *record = recents ? docbm_store_add(recents, notes, "notes", &error) : NULL;
  docbm_store_record_free(record);
  const char *followed[] = {notes};
  docbm_watcher *watcher = record ? docbm_watcher_follow_documents(followed, 1, 0, &error) : NULL;
  if (!watcher) {
    report("recent files and watcher", error);
    return 1;
  }

  /* 2: the picture is renamed; the link follows, and the next save stores it refreshed. */
  if (rename(picture, moved_picture) != 0) return 1;
  char *kept = open_link(document, bookmark);
  docbm_free(bookmark);
  if (!kept) return 1;
  length = contents(text, sizeof text, kept);
  if (docbm_replace_document(document, text, (size_t)length, &error) != 0) {
    report("save", error);
    return 1;
  }
  /* A save puts the notes first on the recent files, with a link to the file as saved. */
  docbm_store_record_free(docbm_store_add(recents, notes, "notes", NULL));

  /* 3: Save As: the link made for the copy's folder, then the copy with the key. */
  docbm_reanchored *made[1] = {NULL};
  const char *links[] = {kept};
  if (docbm_reanchor(document, copy_path, links, 1, made, &error) != 1 ||
      docbm_reanchored_outcome(made[0]) != DOCBM_REANCHOR_REANCHORED) {
    report("Save As: the link for the copy", error);
    return 1;
  }
  length = contents(text, sizeof text, docbm_reanchored_bookmark(made[0]));
  docbm_document *copy = docbm_save_copy(document, copy_path, text, (size_t)length, DOCBM_COPY_CARRY_KEY, &error);
  if (!copy) {
    report("Save As", error);
    return 1;
  }
  printf("saved as %s; its link:\n", copy_path);
  free(open_link(copy, docbm_reanchored_bookmark(made[0])));
  docbm_reanchored_free(made[0]);
  docbm_document_close(copy);

  /* 4: the notes are renamed: the watcher and the recent files follow. */
  if (rename(notes, final_notes) != 0 || wait_for(watcher, DOCBM_EVENT_MOVED) != 0) return 1;
  record = docbm_store_resolve(recents, "notes", &error);
  if (!record) {
    report("recent files", error);
    return 1;
  }
  printf("recent files: %s (%s)\n", docbm_store_record_path(record),
         docbm_record_state_name(docbm_store_record_state(record)));
  docbm_store_record_free(record);
  docbm_document_close(document);
  document = docbm_document_open(final_notes, &error);
  if (!document) {
    report("open", error);
    return 1;
  }

  /* 5: another program's plain atomic save drops the key. */
  snprintf(text, sizeof text, "My notes, edited elsewhere\npicture: %s\n", kept);
  if (write_text(other, text) != 0 || rename(other, final_notes) != 0) return 1;
  if (wait_for(watcher, DOCBM_EVENT_KEY_LOST) != 0) return 1;
  char *lost = open_link(document, kept);
  if (lost) {
    fprintf(stderr, "expected the lost key to be reported\n");
    return 1;
  }
  docbm_check_result *check = docbm_check(final_notes, &error);
  if (!check) {
    report("check", error);
    return 1;
  }
  printf("check: %s: %s\n", docbm_verdict_name(docbm_check_result_verdict(check)),
         docbm_check_result_message(check));
  docbm_check_result_free(check);
  docbm_repair_report *repair = docbm_repair(final_notes, &error);
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
  docbm_watcher_close(watcher);
  docbm_store_close(recents);
  docbm_document_close(document);
  return status;
}
