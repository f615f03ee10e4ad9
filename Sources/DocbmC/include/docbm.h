/*
 * docbm.h: document-scoped bookmarks for C and C++ (libdocbm).
 *
 * A bookmark is anchored on a document: it is signed with a secret key kept in the
 * document's `user.docbm.key` extended attribute, and it finds its target again after
 * renames, moves and safe saves. Save the document with docbm_replace_document() so that
 * the key survives the save; docbm_check() finds a document whose key a plain atomic save
 * lost, and docbm_repair() puts it back from the user's escrow.
 *
 * Link with `pkg-config --cflags --libs docbm`.
 *
 * Ownership
 *   - Every object returned by a function named *_open, docbm_document_create*,
 *     docbm_save_copy*, docbm_adoption_list, docbm_resolve, docbm_check, docbm_repair,
 *     docbm_lint_save, docbm_escrow_list, docbm_store_* (but docbm_store_records_at),
 *     docbm_watcher_* or docbm_test_* is the caller's, and is released with its own
 *     *_free, *_close or *_end call.
 *   - Every `char *` returned is the caller's, released with docbm_free().
 *   - Every `const char *` returned belongs to the object it was read from and stays valid
 *     until that object is released; copy it to keep it longer. Name functions
 *     (docbm_code_name(), ...) return static strings.
 *   - Functions that can fail take a `docbm_error **error` last. On failure they return
 *     NULL (or -1) and, when `error` is not NULL, store a new error there that the caller
 *     releases with docbm_error_free(); on success they leave `*error` untouched. Pass
 *     the address of a NULL `docbm_error *` (an error already there would be overwritten,
 *     not released), or NULL: the failure is still reported by the return value.
 *
 * Threads
 *   Every function may be called from any thread. Objects do not change after they are
 *   made, so one object may be read from several threads at once; an object must not be
 *   released while another thread still uses it. A docbm_store is the one object whose
 *   contents change: each call on it is one transaction on its file, and several threads
 *   may call it at once. Calls block on file-system work (a few
 *   system calls; a bounded search when a target moved): keep them off a UI thread when
 *   the files may be on slow storage.
 *
 * Paths are bytes, as the kernel sees them: a name that is not UTF-8 is kept exactly.
 * Messages are UTF-8 text, one line, and never contain key bytes.
 *
 * Enumerations may gain values in later versions: a `switch` over one needs a `default`.
 */
#ifndef DOCBM_H
#define DOCBM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The release of docbm this header belongs to. A program compiled against it may run with
 * a later libdocbm.so.0 (which docbm_version() names): the soname changes only when the
 * ABI breaks (docs/c.md, "The soname policy").
 */
#define DOCBM_VERSION_MAJOR 0
#define DOCBM_VERSION_MINOR 2
#define DOCBM_VERSION_PATCH 0

/** The version of libdocbm, as "MAJOR.MINOR.PATCH". Static; never NULL. */
const char *docbm_version(void);

/** Releases a string returned by libdocbm (`char *`). NULL is allowed. */
void docbm_free(void *pointer);

/* ---------------------------------------------------------------------------------- */
/* Errors                                                                               */
/* ---------------------------------------------------------------------------------- */

/** What failed. Values mirror DocumentBookmarks' `DocbmError.Code`; names are frozen. */
typedef enum docbm_code {
  /** The document carries no key (never had one, or a save lost it). */
  DOCBM_KEY_MISSING = 1,
  /** The document carries a key, but not the one the bookmark was signed with. */
  DOCBM_KEY_MISMATCH = 2,
  /** The document's key attribute exists but does not parse. */
  DOCBM_KEY_MALFORMED = 3,
  /** The bookmark's authentication tag does not verify: its bytes were changed. */
  DOCBM_TAMPERED = 4,
  /** The bytes are not a bookmark, or are cut short. */
  DOCBM_CORRUPT = 5,
  /** The bookmark (or key value) has a version this library does not know. */
  DOCBM_UNSUPPORTED_VERSION = 6,
  /** The target is gone: not at its paths, nor anywhere on its filesystem. */
  DOCBM_MISSING = 7,
  /** The target's filesystem is not mounted. */
  DOCBM_VOLUME_UNAVAILABLE = 8,
  /** A path given (document or target) does not exist. */
  DOCBM_NOT_FOUND = 9,
  /** A path, or one of its names, is longer than the kernel takes. */
  DOCBM_PATH_TOO_LONG = 10,
  /** The path is neither a regular file nor a folder. */
  DOCBM_UNSUPPORTED_FILE_TYPE = 11,
  /** The filesystem does not support user extended attributes. */
  DOCBM_UNSUPPORTED_FILESYSTEM = 12,
  /** The filesystem is mounted read-only. */
  DOCBM_READ_ONLY_FILESYSTEM = 13,
  /** The file is immutable or append-only. */
  DOCBM_IMMUTABLE = 14,
  /** The caller lacks permission (read, write or search). */
  DOCBM_PERMISSION_DENIED = 15,
  /** No room (disk full, quota, attribute too large). */
  DOCBM_NO_SPACE = 16,
  /** An input/output error from the device. */
  DOCBM_IO_ERROR = 17,
  /** Another system failure; docbm_error_errno() says which. */
  DOCBM_SYSTEM_FAILURE = 18,
  /** A save's writer failed; the document is untouched. */
  DOCBM_WRITER_FAILED = 19,
  /** A save's writer returned without writing anything at the path it was given. */
  DOCBM_NOTHING_WRITTEN = 20,
  /** The document has several hard links, and the save was not allowed to split them. */
  DOCBM_HARD_LINKED = 21,
  /** A save could not copy the document's extended attributes to the new version. */
  DOCBM_ATTRIBUTE_COPY_FAILED = 22,
  /** The escrow folder or a file in it could be changed by someone else; not used. */
  DOCBM_ESCROW_UNTRUSTED = 23,
  /** The escrow's database is damaged, not docbm's, or of a newer version. */
  DOCBM_ESCROW_DAMAGED = 24,
  /** The escrow records a key for this path, but this file is not shown to be that document. */
  DOCBM_DOCUMENT_UNPROVEN = 25,
  /** A save could not keep the document's owner or group. */
  DOCBM_OWNER_CHANGED = 26,
  /** A first save found a file made meanwhile at the document's path. */
  DOCBM_DOCUMENT_EXISTS = 27,
  /** A single file from the Documents portal (Flatpak), which refuses extended attributes. */
  DOCBM_PORTAL_REFUSES_ATTRIBUTES = 28,
  /** Reached through the Documents portal, which does not say where it really is. */
  DOCBM_PORTAL_HOST_PATH_UNKNOWN = 29,
  /** Inside a sandbox, the target is not where the app can see it. */
  DOCBM_OUTSIDE_SANDBOX = 30,
  /** Not found in the part of its filesystem searched; it may exist further away. */
  DOCBM_NOT_FOUND_NEARBY = 31,
  /** A save would overwrite a document its permissions mark read-only (no one, or not the
   *  caller, may write it); allowed with DOCBM_ALLOW_READ_ONLY. */
  DOCBM_READ_ONLY_DOCUMENT = 32,
  /** A required argument was NULL or empty, or a value no enumeration has (libdocbm's own
   *  code, named "invalidArgument"; no Swift equivalent). */
  DOCBM_INVALID_ARGUMENT = 1000,
  /** A store has no record with the key given ("noSuchKey"). */
  DOCBM_NO_SUCH_KEY = 1001,
  /** The store file was written by a newer docbm; it is neither read nor overwritten
   *  ("storeNewerVersion"). */
  DOCBM_STORE_NEWER_VERSION = 1002,
  /** The file at a store's path is not a store file (another program's file, a folder, a
   *  FIFO); it is left as it is ("notAStore"). */
  DOCBM_NOT_A_STORE = 1003,
  /** The store file belongs to another user or others may write it or its folder, so it
   *  is neither read nor written ("storeUntrusted"). */
  DOCBM_STORE_UNTRUSTED = 1004,
  /** The store file is damaged and no last good copy restores it; it is left as it is
   *  ("storeCorrupt"). */
  DOCBM_STORE_CORRUPT = 1005,
  /** The store file lost its key and the escrow cannot put it back: its records'
   *  bookmarks cannot be verified; nothing was changed ("storeKeyLost"). */
  DOCBM_STORE_KEY_LOST = 1006
} docbm_code;

/** What to do about a failure. Mirrors `Recommendation`; names are frozen. */
typedef enum docbm_recommendation {
  /** No recommendation: the call itself was wrong (DOCBM_INVALID_ARGUMENT), or a store
   *  failed for a reason of its own (the codes from 1001), which the message explains. */
  DOCBM_RECOMMEND_NONE = 0,
  /** The condition may pass: try again later. */
  DOCBM_RECOMMEND_RETRY_LATER = 1,
  /** Ask the user to pick the file again. */
  DOCBM_RECOMMEND_PICK_AGAIN = 2,
  /** The bookmark cannot work again: forget it. */
  DOCBM_RECOMMEND_FORGET = 3,
  /** The document lost its key: `docbm repair` can put an escrowed key back. */
  DOCBM_RECOMMEND_REPAIR_KEY = 4,
  /** Use another location (another filesystem, folder or document). */
  DOCBM_RECOMMEND_USE_ANOTHER_LOCATION = 5,
  /** A save failed: save elsewhere (the document is unchanged). */
  DOCBM_RECOMMEND_SAVE_ELSEWHERE = 6,
  /** A save needs the user's confirmation (hard links, owner, attributes). */
  DOCBM_RECOMMEND_CONFIRM_SAVE = 7,
  /** A save needs the file's immutable or append-only flag cleared. */
  DOCBM_RECOMMEND_CLEAR_FLAGS = 8,
  /** A save needs free space. */
  DOCBM_RECOMMEND_FREE_SPACE = 9,
  /** Not found where the search looked: resolve again with a wider search, keep the bookmark. */
  DOCBM_RECOMMEND_SEARCH_WIDER = 10
} docbm_recommendation;

/**
 * A failure, with the fields Swift's `DocbmError` and Python's `docbm.DocbmError` have
 * under the same names: code, recommendation, message, path, last known path, errno,
 * system call and step.
 */
typedef struct docbm_error docbm_error;

/** The error's code. */
docbm_code docbm_error_code(const docbm_error *error);
/** What to do about it. */
docbm_recommendation docbm_error_recommendation(const docbm_error *error);
/** The sentence that says what failed, naming the path. Owned by `error`; never NULL. */
const char *docbm_error_message(const docbm_error *error);
/** The error in one line for a log or a terminal: its code's name, the message, and the
 *  step and system call when there are ones ("noSpace: ... (step: write) [write: ENOSPC]").
 *  Owned by `error`; never NULL. */
const char *docbm_error_description(const docbm_error *error);
/** The path the error concerns, or NULL. Owned by `error`. */
const char *docbm_error_path(const docbm_error *error);
/** Where the document or target was last known to be, when that is not the path the error
 *  concerns (a target gone from its recorded place), or NULL. Owned by `error`. */
const char *docbm_error_last_known_path(const docbm_error *error);
/** The errno of the system call that failed, or 0 when none did. */
int docbm_error_errno(const docbm_error *error);
/** The name of the system call that failed ("renameat2"), or NULL when none did. Owned by
 *  `error`. */
const char *docbm_error_system_call(const docbm_error *error);
/** For a failed save, the step that failed, named as Swift's `SaveStep` ("copyAttributes";
 *  see docbm_save_step), or NULL. The document is intact unless the step is "syncFolder". Owned by `error`. */
const char *docbm_error_step(const docbm_error *error);
/** Releases an error. NULL is allowed. */
void docbm_error_free(docbm_error *error);

/** A code's name as the Swift API and the CLI's JSON spell it ("keyMissing";
 *  DOCBM_INVALID_ARGUMENT is "invalidArgument"), or NULL for a value this library does
 *  not know. Static. */
const char *docbm_code_name(docbm_code code);
/** A recommendation's name ("repairKey"), or NULL for an unknown value. Static. */
const char *docbm_recommendation_name(docbm_recommendation recommendation);

/* ---------------------------------------------------------------------------------- */
/* Documents and bookmarks                                                              */
/* ---------------------------------------------------------------------------------- */

/** A document that bookmarks are anchored on. */
typedef struct docbm_document docbm_document;

/**
 * Opens the document at `path` (a regular file or a folder; relative paths start at the
 * working folder of this moment). Nothing is read or written yet: the key is made by the
 * first docbm_make_bookmark(). New keys are escrowed in the user's escrow
 * ($DOCBM_ESCROW_DIR, else $XDG_STATE_HOME/docbm, else ~/.local/state/docbm), as the
 * `docbm` command, Swift and Python do by default, so that docbm_repair() can restore a
 * lost one; docbm_document_open_with() opens one without.
 *
 * Fails with DOCBM_INVALID_ARGUMENT for a NULL or empty path.
 */
docbm_document *docbm_document_open(const char *path, docbm_error **error);

/** How far resolution looks for a target that left its recorded paths. Mirrors `SearchBudget.Reach`. */
typedef enum docbm_search_reach {
  /** The folders near its old place and the document's only: a target not found there is
      DOCBM_NOT_FOUND_NEARBY. */
  DOCBM_SEARCH_NEARBY = 1,
  /** Near it, then every folder the user can read on its filesystem, the home folder first
      (what docbm_document_open() does). */
  DOCBM_SEARCH_FILESYSTEM = 2
} docbm_search_reach;

/** A reach's name ("nearby", "filesystem"), or NULL for a value that is not one. */
const char *docbm_search_reach_name(docbm_search_reach reach);

/**
 * docbm_document_open(), with the search of its resolutions set: `reach`, and
 * `time_limit_seconds`, the longest one call (docbm_resolve(), docbm_resolve_all()) walks
 * whole filesystems, over all its bookmarks; a negative value for no limit (the default is
 * 10 seconds). A target is DOCBM_MISSING only when every folder on its filesystem was
 * searched; a search that stopped sooner says DOCBM_NOT_FOUND_NEARBY (recommendation
 * DOCBM_SEARCH_WIDER), and so does one that passed over folders the user cannot read
 * (recommendation DOCBM_PICK_AGAIN: the target may be in one of them). The nearby
 * search's own bounds (how many entries, how deep, how many folders up) are the library's
 * standard ones: Swift's `SearchBudget` tunes them for benchmarks and tests, and a C
 * caller has no need to.
 *
 * Fails with DOCBM_INVALID_ARGUMENT for a NULL or empty path, or a reach not listed above.
 */
docbm_document *docbm_document_open_searching(
  const char *path, docbm_search_reach reach, double time_limit_seconds, docbm_error **error);

/** Whether a document's new keys are kept in an escrow. */
typedef enum docbm_escrow_use {
  /** The user's escrow, as docbm_document_open() and every docbm interface use by default. */
  DOCBM_USER_ESCROW = 0,
  /** None: a key the document loses cannot be put back by docbm_repair(). For a scratch
      document, or an app that keeps its keys itself. */
  DOCBM_NO_ESCROW = 1
} docbm_escrow_use;

/**
 * docbm_document_open_searching(), with `escrow` saying whether new keys are escrowed
 * (DOCBM_USER_ESCROW, what the other open calls do) or not (DOCBM_NO_ESCROW).
 *
 * Fails with DOCBM_INVALID_ARGUMENT for a NULL or empty path, or a reach or escrow use not
 * listed above.
 */
docbm_document *docbm_document_open_with(
  const char *path, docbm_search_reach reach, double time_limit_seconds, docbm_escrow_use escrow,
  docbm_error **error);

/** Releases a document. NULL is allowed. */
void docbm_document_close(docbm_document *document);

/**
 * Makes a bookmark to `target` (a regular file or a folder; a symbolic link is followed),
 * signed with the document's key, which is made first when the document has none.
 * Returns the bookmark's text form ("docbmRec..."), which the caller stores in the
 * document and releases with docbm_free().
 *
 * Fails with DOCBM_NOT_FOUND, DOCBM_UNSUPPORTED_FILE_TYPE, DOCBM_PERMISSION_DENIED; when
 * the key cannot be stored, DOCBM_UNSUPPORTED_FILESYSTEM, DOCBM_READ_ONLY_FILESYSTEM,
 * DOCBM_IMMUTABLE or DOCBM_NO_SPACE; DOCBM_DOCUMENT_UNPROVEN when the escrow records a key
 * for this path that this file is not shown to own.
 */
char *docbm_make_bookmark(const docbm_document *document, const char *target, docbm_error **error);

/** Why a resolved bookmark is stale (bits of docbm_resolution_stale_reasons()). */
typedef enum docbm_stale_reason {
  /** The target was renamed or moved; found by its identity at a new path. */
  DOCBM_STALE_TARGET_MOVED = 1 << 0,
  /** The document moved or was copied together with the target; found by the relative path. */
  DOCBM_STALE_DOCUMENT_MOVED = 1 << 1,
  /** The target is at its absolute path, but the document moved away from it. */
  DOCBM_STALE_RELATIVE_PATH_CHANGED = 1 << 2,
  /** Another file stands at the target's path (a new inode); resolved by path. */
  DOCBM_STALE_IDENTITY_CHANGED = 1 << 3,
  /** Two files could be the target; the recorded one is returned, no refreshed bookmark. */
  DOCBM_STALE_AMBIGUOUS = 1 << 4,
  /** The target is in a Trash (with DOCBM_STALE_TARGET_MOVED): the user threw it away. */
  DOCBM_STALE_IN_TRASH = 1 << 5,
  /** Found by a relink under the folder its tree moved to. */
  DOCBM_STALE_RELINKED = 1 << 6
} docbm_stale_reason;

/** A stale reason's name ("targetMoved"), or NULL for a value that is not one reason. */
const char *docbm_stale_reason_name(docbm_stale_reason reason);

/** Where a bookmark leads, and whether it should be replaced by a fresh one. */
typedef struct docbm_resolution docbm_resolution;

/**
 * Resolves a bookmark's text form against the document: verifies it with the document's
 * key, then finds its target (at its recorded path, at its path relative to the document,
 * or by its identity nearby).
 *
 * Fails with DOCBM_CORRUPT (not a bookmark), DOCBM_TAMPERED, DOCBM_KEY_MISSING (a save lost
 * the key: docbm_repair() can put it back), DOCBM_KEY_MISMATCH, DOCBM_MISSING,
 * DOCBM_VOLUME_UNAVAILABLE, DOCBM_PERMISSION_DENIED, among others; the error's
 * recommendation says what to do.
 */
docbm_resolution *docbm_resolve(const docbm_document *document, const char *bookmark, docbm_error **error);

/**
 * Resolves `count` bookmarks at once: the searches for moved targets share the folders
 * they list, each listed at most once per call. For each index i, stores either a
 * resolution in `resolutions[i]` (and NULL in `errors[i]`) or NULL in `resolutions[i]` and
 * an error in `errors[i]`; the caller releases each. `errors` may be NULL. Returns how many
 * resolved, or -1 (with `*error` set, nothing stored) when an argument is NULL.
 */
long docbm_resolve_all(
  const docbm_document *document, const char *const *bookmarks, size_t count,
  docbm_resolution **resolutions, docbm_error **errors, docbm_error **error);

/** The target's path. Owned by `resolution`; never NULL. */
const char *docbm_resolution_path(const docbm_resolution *resolution);
/** 1 when the bookmark is stale (store docbm_resolution_refreshed() in its place), else 0. */
int docbm_resolution_is_stale(const docbm_resolution *resolution);
/** A fresh bookmark's text form to store in place of the old one, or NULL when none is
 *  needed (or, when ambiguous, none is made). Owned by `resolution`. */
const char *docbm_resolution_refreshed(const docbm_resolution *resolution);
/** Why it is stale: a mask of docbm_stale_reason bits, 0 when it is not. */
unsigned docbm_resolution_stale_reasons(const docbm_resolution *resolution);
/** 1 when the target is a folder, 0 when it is a regular file. */
int docbm_resolution_is_folder(const docbm_resolution *resolution);
/** 1 when the target is in a Trash (deleted in a file manager, and restorable), else 0;
 *  said whether or not the bookmark is stale, so a refreshed bookmark still says it. */
int docbm_resolution_is_in_trash(const docbm_resolution *resolution);
/** Releases a resolution. NULL is allowed. */
void docbm_resolution_free(docbm_resolution *resolution);

/** What a relink did with one bookmark. Mirrors `Relink.Outcome`. */
typedef enum docbm_relink_outcome {
  /** Found under the new folder: store docbm_relink_result_refreshed() in its place. */
  DOCBM_RELINK_RELINKED = 1,
  /** Its recorded path is not under the old folder: nothing was looked for. */
  DOCBM_RELINK_NOT_UNDER_SOURCE = 2,
  /** Nothing of the target's kind at its place under the new folder. */
  DOCBM_RELINK_NOTHING_THERE = 3,
  /** A file is there, but not the target; docbm_relink_result_reason() says why. */
  DOCBM_RELINK_NOT_THE_TARGET = 4,
  /** The bookmark could not be verified or read; see docbm_relink_result_code(). */
  DOCBM_RELINK_FAILED = 5
} docbm_relink_outcome;

/** An outcome's name ("relinked", "notTheTarget"), or NULL for a value that is not one. */
const char *docbm_relink_outcome_name(docbm_relink_outcome outcome);

/** One bookmark's relink. */
typedef struct docbm_relink_result docbm_relink_result;

/**
 * Relinks bookmarks whose targets moved with a whole folder tree: each bookmark whose
 * recorded path lies under `from` is looked for at the same place under `to`. On the
 * target's own filesystem the file there must be the very one recorded; on another, it
 * must have the recorded kind, size and modification time; a symbolic link is never taken.
 * Stores a result in `results[i]` for each of the `count` bookmarks (the caller releases
 * each with docbm_relink_result_free()). Nothing is written: save the refreshed
 * bookmarks with the document. Returns how many were relinked, or -1 (with `*error` set,
 * nothing stored) when an argument is NULL or empty.
 */
long docbm_relink(
  const docbm_document *document, const char *const *bookmarks, size_t count, const char *from,
  const char *to, docbm_relink_result **results, docbm_error **error);

/** The outcome. */
docbm_relink_outcome docbm_relink_result_outcome(const docbm_relink_result *result);
/** Where the target was looked for, or NULL when it was not under the old folder (or the
 *  bookmark failed). Owned by `result`. */
const char *docbm_relink_result_candidate(const docbm_relink_result *result);
/** Why the file there is not the target, or the failure's message; else NULL. Owned by `result`. */
const char *docbm_relink_result_reason(const docbm_relink_result *result);
/** The refreshed bookmark's text form when relinked (stale reason DOCBM_STALE_RELINKED),
 *  else NULL. Owned by `result`. */
const char *docbm_relink_result_refreshed(const docbm_relink_result *result);
/** The failure's code for DOCBM_RELINK_FAILED, else 0. */
docbm_code docbm_relink_result_code(const docbm_relink_result *result);
/** Releases a result. NULL is allowed. */
void docbm_relink_result_free(docbm_relink_result *result);

/* ---------------------------------------------------------------------------------- */
/* Saving                                                                               */
/* ---------------------------------------------------------------------------------- */

/**
 * Saves `length` bytes as the document's new contents, safely: written to a new file
 * beside the document, given the document's owner, mode, ACLs and extended attributes
 * (its key among them), flushed, and renamed over it. A crash leaves the whole old or the
 * whole new version; a failure leaves the document as it was. A document that does not
 * exist yet is created. Returns 0, or -1 on failure.
 *
 * Fails with DOCBM_HARD_LINKED, DOCBM_OWNER_CHANGED, DOCBM_READ_ONLY_DOCUMENT (refused
 * before anything is written; docbm_replace_document_allowing() saves anyway),
 * DOCBM_IMMUTABLE, DOCBM_NO_SPACE, DOCBM_READ_ONLY_FILESYSTEM, DOCBM_PERMISSION_DENIED,
 * DOCBM_ATTRIBUTE_COPY_FAILED, DOCBM_UNSUPPORTED_FILE_TYPE (a folder document), among
 * others; the recommendation says what to do about the save.
 */
int docbm_replace_document(const docbm_document *document, const void *bytes, size_t length, docbm_error **error);

/** What a save may give up or override when the caller allows it, after asking the user
 *  (the error's recommendation is then DOCBM_RECOMMEND_CONFIRM_SAVE). Combine with `|`. */
typedef enum docbm_allowance {
  /** Save a document with other hard links; they keep the old version (DOCBM_HARD_LINKED). */
  DOCBM_ALLOW_SPLIT_HARD_LINKS = 1,
  /** Save when the new version cannot keep the document's owner or group; it becomes the
   *  saver's (DOCBM_OWNER_CHANGED). */
  DOCBM_ALLOW_OWNER_CHANGE = 2,
  /** Save a document whose permissions mark it read-only; the new version keeps its mode
   *  (DOCBM_READ_ONLY_DOCUMENT). */
  DOCBM_ALLOW_READ_ONLY = 4
} docbm_allowance;

/**
 * docbm_replace_document(), allowing what `allowances` (docbm_allowance values combined
 * with `|`, or 0) names. Fails as docbm_replace_document() does, and with
 * DOCBM_INVALID_ARGUMENT for a value not listed.
 */
int docbm_replace_document_allowing(
  const docbm_document *document, const void *bytes, size_t length, unsigned allowances, docbm_error **error);

/**
 * Writes a new version of a document: called once with the path of a new file beside the
 * document (on its filesystem, with its extension), which it creates and writes (for a
 * folder document, a folder). Returns 0 when it wrote the version, anything else when it
 * failed. `context` is the one passed to docbm_replace_document_with_writer().
 */
typedef int (*docbm_writer)(const char *path, void *context);

/**
 * docbm_replace_document() for a writer that writes the new version itself (a large
 * document streamed out, a folder document). The writer runs on the calling thread. Fails
 * as docbm_replace_document() does, and with DOCBM_WRITER_FAILED when the writer returns
 * non-zero, DOCBM_NOTHING_WRITTEN when it wrote nothing; the document is unchanged then.
 */
int docbm_replace_document_with_writer(
  const docbm_document *document, docbm_writer writer, void *context, docbm_error **error);

/* ---------------------------------------------------------------------------------- */
/* Save As                                                                              */
/* ---------------------------------------------------------------------------------- */

/** What a copy gets of the document's key. */
typedef enum docbm_copy_key {
  /** The copy carries the document's key: the bookmarks in it keep resolving there
   *  ("Save As"). Whoever gets the copy can resolve them too. */
  DOCBM_COPY_CARRY_KEY = 0,
  /** The copy carries no key ("save a copy for someone else"): bookmarks in it fail with
   *  DOCBM_KEY_MISSING there; the recipient's app makes new ones. */
  DOCBM_COPY_STRIP_KEY = 1
} docbm_copy_key;

/**
 * Saves `length` bytes as a copy of the document at `destination` ("Save As"). The copy
 * gets the document's extended attributes and mode (not its owner: a copy belongs to
 * whoever makes it) and, with DOCBM_COPY_CARRY_KEY, its key, recorded in the document's
 * escrow for the copy's path. A file at `destination` is replaced as safely as
 * docbm_replace_document() replaces a document; the document itself is not written.
 * Returns the copy, with the document's escrow (release it with docbm_document_close()),
 * or NULL on failure.
 *
 * Bookmarks copied in as they are resolve from a copy in another folder, but stale:
 * docbm_reanchor() makes them for the copy's place first.
 *
 * Fails as docbm_replace_document() does, and with DOCBM_INVALID_ARGUMENT for a NULL
 * argument or a key value not listed.
 */
docbm_document *docbm_save_copy(
  const docbm_document *document, const char *destination, const void *bytes, size_t length, docbm_copy_key key,
  docbm_error **error);

/**
 * docbm_save_copy() for a writer that writes the copy itself: called once, on the calling
 * thread, with the path of a new file beside `destination`. Fails as
 * docbm_replace_document_with_writer() does; nothing is at `destination` then that was not
 * there before.
 */
docbm_document *docbm_save_copy_with_writer(
  const docbm_document *document, const char *destination, docbm_copy_key key, docbm_writer writer,
  void *context, docbm_error **error);

/** What became of a bookmark made for a copy's place. Mirrors `ReanchoredBookmark.Outcome`. */
typedef enum docbm_reanchor_outcome {
  /** Resolved against the document and signed for the copy's place: store
   *  docbm_reanchored_bookmark() in the copy. */
  DOCBM_REANCHOR_REANCHORED = 1,
  /** Two files could be the target (see the candidates): not re-anchored; let the user
   *  choose. */
  DOCBM_REANCHOR_AMBIGUOUS = 2,
  /** It did not resolve (see docbm_reanchored_code()): not re-anchored. */
  DOCBM_REANCHOR_FAILED = 3
} docbm_reanchor_outcome;

/** An outcome's name ("reanchored"), or NULL for a value that is not one. */
const char *docbm_reanchor_outcome_name(docbm_reanchor_outcome outcome);

/** One bookmark made for a copy's place. */
typedef struct docbm_reanchored docbm_reanchored;

/**
 * Makes `count` bookmarks of the document work from a copy to be saved at `destination`:
 * each is resolved against the document and, when that finds one target, signed anew,
 * relative to the copy's folder, with the key the copy will carry (the document's).
 * Stores a result in `results[i]` for each (the caller releases each with
 * docbm_reanchored_free()). A bookmark that is not re-anchored is reported, never dropped:
 * the caller decides what the copy stores for it (its original text, typically, for the
 * user to pick again). Nothing is written: save the copy with docbm_save_copy() and
 * DOCBM_COPY_CARRY_KEY, with the new bookmarks in it. Returns how many were re-anchored,
 * or -1 (with `*error` set, nothing stored) when an argument is NULL.
 */
long docbm_reanchor(
  const docbm_document *document, const char *destination, const char *const *bookmarks, size_t count,
  docbm_reanchored **results, docbm_error **error);

/** The outcome. */
docbm_reanchor_outcome docbm_reanchored_outcome(const docbm_reanchored *result);
/** The bookmark's text form for the copy when re-anchored, else NULL. Owned by `result`. */
const char *docbm_reanchored_bookmark(const docbm_reanchored *result);
/** How many files could be the target of an ambiguous bookmark; else 0. */
size_t docbm_reanchored_candidate_count(const docbm_reanchored *result);
/** The path of candidate `index`, or NULL when `index` is not below the count. Owned by
 *  `result`. */
const char *docbm_reanchored_candidate(const docbm_reanchored *result, size_t index);
/** The failure's code for DOCBM_REANCHOR_FAILED, else 0. */
docbm_code docbm_reanchored_code(const docbm_reanchored *result);
/** The failure's message for DOCBM_REANCHOR_FAILED, else NULL. Owned by `result`. */
const char *docbm_reanchored_message(const docbm_reanchored *result);
/** Releases a result. NULL is allowed. */
void docbm_reanchored_free(docbm_reanchored *result);

/* ---------------------------------------------------------------------------------- */
/* Adoption                                                                             */
/* ---------------------------------------------------------------------------------- */

/**
 * A document's bookmarks that do not verify with its key (it has none, or another), each
 * with the file its recorded path relative to the document names now: what an app shows
 * the user before adopting them. A copy of a project that travelled without its key (a
 * sync, a `git clone`, an unzipped archive) holds such bookmarks. Nothing in a candidate
 * is verified: it may be a copy's, or pasted from someone else's document, or forged; only
 * the user, who sees where it leads, can say it is theirs.
 */
typedef struct docbm_adoption docbm_adoption;

/**
 * Lists the document's candidates for adoption, in the order found in its bytes (each
 * occurrence a candidate of its own). Writes nothing. Fails with DOCBM_NOT_FOUND,
 * DOCBM_PERMISSION_DENIED, DOCBM_UNSUPPORTED_FILE_TYPE, DOCBM_IO_ERROR (the document
 * cannot be read), DOCBM_KEY_MALFORMED or DOCBM_UNSUPPORTED_VERSION (its key attribute
 * cannot be used).
 */
docbm_adoption *docbm_adoption_list(const docbm_document *document, docbm_error **error);

/** How many candidates the list holds. */
size_t docbm_adoption_count(const docbm_adoption *adoption);
/** Candidate `index`'s bookmark, as the document stores it. Owned by `adoption`; NULL when
 *  `index` is not below the count (as for every docbm_adoption_* call below). */
const char *docbm_adoption_bookmark(const docbm_adoption *adoption, size_t index);
/** The fingerprint of the key it names ("1a2b3c4d-5e6f7a8b"). Owned by `adoption`. */
const char *docbm_adoption_key(const docbm_adoption *adoption, size_t index);
/** The target's path relative to the document's folder, as recorded (unverified). Owned by
 *  `adoption`. */
const char *docbm_adoption_recorded_path(const docbm_adoption *adoption, size_t index);
/** The document the bookmark was made in, as recorded (unverified), or NULL when it does not
 *  say. Owned by `adoption`. */
const char *docbm_adoption_recorded_document(const docbm_adoption *adoption, size_t index);
/** What the recorded path names from the document's folder now, as its real path: the only
 *  target adoption gives it; NULL when nothing is there. Owned by `adoption`. */
const char *docbm_adoption_target(const docbm_adoption *adoption, size_t index);
/** 1 when the target is a folder, else 0. */
int docbm_adoption_target_is_folder(const docbm_adoption *adoption, size_t index);
/** 1 when the user must confirm this candidate on its own, having seen where it really
 *  leads: its target is reached through a symbolic link, or lies outside the document's
 *  folder; else 0. Adopt such a candidate only on a yes for it, never with the others. */
int docbm_adoption_needs_own_confirmation(const docbm_adoption *adoption, size_t index);
/** Releases a list. NULL is allowed. */
void docbm_adoption_free(docbm_adoption *adoption);

/**
 * Adopts the `count` candidates at `indexes` of `adoption` (listed from this document),
 * after the user has seen what each points at and said yes: makes a new bookmark to each
 * one's target with the document's key, giving the document a key first when it has none
 * (escrowed as docbm_make_bookmark() escrows it; a key the document carries is kept).
 * Stores in `bookmarks[i]` the new bookmark's text for `indexes[i]` (the caller releases
 * each with docbm_free()), or NULL when its target is not there; candidates with the same
 * target get the same bookmark. The old records are never trusted or reused: store the
 * new ones with the document's next save. Never automatic: docbm_repair() and checks do
 * not adopt.
 *
 * Returns how many bookmarks were made, or -1 with nothing stored: DOCBM_INVALID_ARGUMENT
 * for a NULL argument or an index not below the count; DOCBM_NOT_FOUND when a target is no
 * longer the object listed (list again, and ask again); DOCBM_DOCUMENT_UNPROVEN and the
 * other failures of docbm_make_bookmark().
 */
long docbm_adopt(
  const docbm_document *document, const docbm_adoption *adoption, const size_t *indexes, size_t count,
  char **bookmarks, docbm_error **error);

/* ---------------------------------------------------------------------------------- */
/* New documents                                                                        */
/* ---------------------------------------------------------------------------------- */

/**
 * A document about to be saved for the first time: bookmarks can be made for it before it
 * exists, and its first save creates it with the key that signed them. The key is made,
 * in memory, when the handle is made; it is never printed nor put in an error. Make the
 * bookmarks with one handle and create the document once: another handle for the same
 * path has another key.
 */
typedef struct docbm_new_document docbm_new_document;

/**
 * A new document to be created at `path`, where nothing is yet (nothing is checked or
 * written now). With DOCBM_USER_ESCROW its key is escrowed during the first save, before
 * the document appears at its path; with DOCBM_NO_ESCROW it is not.
 *
 * Fails with DOCBM_INVALID_ARGUMENT for a NULL or empty path, or an escrow use not listed.
 */
docbm_new_document *docbm_new_document_open(const char *path, docbm_escrow_use escrow, docbm_error **error);

/** Releases a new document's handle (and its key, when no document was created). NULL is allowed. */
void docbm_new_document_close(docbm_new_document *draft);

/**
 * docbm_make_bookmark() for a document not created yet: signed with the key the document
 * will be created with, relative to its folder. The bookmark resolves once
 * docbm_document_create() has created the document.
 *
 * Fails with DOCBM_NOT_FOUND, DOCBM_UNSUPPORTED_FILE_TYPE, DOCBM_PERMISSION_DENIED.
 */
char *docbm_new_document_make_bookmark(const docbm_new_document *draft, const char *target, docbm_error **error);

/**
 * Creates the document with `length` bytes as its contents: written beside its path,
 * given the key with XATTR_CREATE and the usual mode (0666 less the umask), flushed, and
 * renamed into place only while nothing is at the path. Returns the document, released
 * with docbm_document_close(); NULL on failure, when nothing is created.
 *
 * Fails with DOCBM_DOCUMENT_EXISTS (a file, folder or link is at the path, there before or
 * made meanwhile; it is left as it is), and as docbm_replace_document() does; with the
 * escrow's errors when the key cannot be escrowed.
 */
docbm_document *docbm_document_create(
  const docbm_new_document *draft, const void *bytes, size_t length, docbm_error **error);

/**
 * docbm_document_create() for a writer that writes the first version itself, at the path
 * it is given (for a folder document, a folder). Fails as docbm_document_create() does,
 * and with DOCBM_WRITER_FAILED when the writer returns non-zero, DOCBM_NOTHING_WRITTEN
 * when it wrote nothing.
 */
docbm_document *docbm_document_create_with_writer(
  const docbm_new_document *draft, docbm_writer writer, void *context, docbm_error **error);

/* ---------------------------------------------------------------------------------- */
/* Checking and repair                                                                  */
/* ---------------------------------------------------------------------------------- */

/** A check's verdict on one document. Mirrors `CheckVerdict`; names are frozen. */
typedef enum docbm_verdict {
  /** The document has its key, and every bookmark in it verifies. */
  DOCBM_VERDICT_OK = 1,
  /** The file quotes bookmarks made on other documents (a history, a note); no key belongs on it. */
  DOCBM_VERDICT_QUOTES_BOOKMARKS = 2,
  /** No bookmark in the document, and the escrow names no key for it. */
  DOCBM_VERDICT_NO_BOOKMARKS = 3,
  /** Its bookmarks, or the escrow's record, name a key it no longer has: docbm_repair(). */
  DOCBM_VERDICT_KEY_LOST = 4,
  /** It has a key, but its bookmarks were all signed with another one. */
  DOCBM_VERDICT_KEY_MISMATCH = 5,
  /** Some bookmarks verify and some do not. */
  DOCBM_VERDICT_MIXED = 6,
  /** Its filesystem has no user extended attributes, so it can hold no key. */
  DOCBM_VERDICT_UNSUPPORTED_FILESYSTEM = 7,
  /** The document or its key could not be read. */
  DOCBM_VERDICT_UNREADABLE = 8,
  /** It holds more bookmarks than a check examines; the rest is unchecked. */
  DOCBM_VERDICT_INCOMPLETE = 9
} docbm_verdict;

/** A verdict's name as the CLI spells it ("keyLost"), or NULL for an unknown value. */
const char *docbm_verdict_name(docbm_verdict verdict);

/** What a check found in one document. */
typedef struct docbm_check_result docbm_check_result;

/**
 * Checks the document at `path`: reads its key and every bookmark in its bytes, and says
 * whether a save lost its key, with the user's escrow as evidence (as `docbm check`
 * does). A document that cannot be read is a verdict (DOCBM_VERDICT_UNREADABLE), not a
 * failure. Fails only with DOCBM_INVALID_ARGUMENT.
 */
docbm_check_result *docbm_check(const char *path, docbm_error **error);

/** Called by docbm_check_tree() for each document checked, on the calling thread, with
 *  `context` as given. `result` belongs to the call: it is released when the visitor
 *  returns (copy what you keep). */
typedef void (*docbm_check_visitor)(const docbm_check_result *result, void *context);

/**
 * Checks every document in the tree at `root` (a folder, or one file) as `docbm check -r`
 * does, on every core the process may run on, and calls `visit` for each in walk order.
 * The escrow's records of the tree are read once. Folders that cannot be listed are
 * skipped and counted in `*unreadable_folders` (may be NULL); `docbm check -r` names them.
 * Returns how many documents were checked, or -1: DOCBM_INVALID_ARGUMENT (no `root`, no
 * `visit`).
 */
long long docbm_check_tree(const char *root, docbm_check_visitor visit, void *context, size_t *unreadable_folders,
                           docbm_error **error);

/** The document checked: the path given to docbm_check(), or one found in the tree. Owned
 *  by `result`. */
const char *docbm_check_result_path(const docbm_check_result *result);
/** The verdict. */
docbm_verdict docbm_check_result_verdict(const docbm_check_result *result);
/** 1 when the verdict is a problem worth reporting (`docbm check` exits 2), else 0. */
int docbm_check_result_is_problem(const docbm_check_result *result);
/** The check in one readable line. Owned by `result`; never NULL. */
const char *docbm_check_result_message(const docbm_check_result *result);
/** How many bookmarks were found in the document's bytes. */
size_t docbm_check_result_bookmark_count(const docbm_check_result *result);
/** Releases a check's result. NULL is allowed. */
void docbm_check_result_free(docbm_check_result *result);

/** What a repair did. Mirrors `DocumentRepairer.Report.Action`; names are frozen. */
typedef enum docbm_repair_action {
  /** The escrowed key was put back. */
  DOCBM_REPAIR_RESTORED = 1,
  /** Nothing needed repair. */
  DOCBM_REPAIR_NOTHING_TO_DO = 2,
  /** Repair was possible in principle but refused; the refusal and message say why. */
  DOCBM_REPAIR_REFUSED = 3
} docbm_repair_action;

/** An action's name as the CLI's JSON spells it ("restored"), or NULL for an unknown value. */
const char *docbm_repair_action_name(docbm_repair_action action);

/** What a repair did to one document. */
typedef struct docbm_repair_report docbm_repair_report;

/**
 * Repairs the document at `path`: when a save lost its key and the user's escrow holds
 * it, and the escrow's rule shows this file is that key's document, puts the key back.
 * Never gives a document a key it cannot be shown to own. Fails only with
 * DOCBM_INVALID_ARGUMENT: a refusal is a report.
 */
docbm_repair_report *docbm_repair(const char *path, docbm_error **error);

/**
 * docbm_repair(), also putting the key on a file of the user's that the escrow never
 * recorded for it, when the file's own bookmarks name the key and verify with it: a copy
 * the user made without its key (`cp`, a stripped Save As), or the app's own file that
 * another program wrote anew (remedy "repairAllowingUnrecorded"). This gives the key to
 * everyone who can read the file: they can then forge bookmarks for every document that
 * carries it, so narrow the file's mode first when others may read it. Fails only with
 * DOCBM_INVALID_ARGUMENT: a refusal is a report.
 */
docbm_repair_report *docbm_repair_allowing_unrecorded(const char *path, docbm_error **error);

/** What was done. */
docbm_repair_action docbm_repair_report_action(const docbm_repair_report *report);
/** Why it was refused, as the CLI's JSON spells it ("notRecorded"), or NULL when it was
 *  not. Owned by `report`. */
const char *docbm_repair_report_refusal(const docbm_repair_report *report);
/** What was done, or why not, in one readable line. Owned by `report`; never NULL. */
const char *docbm_repair_report_message(const docbm_repair_report *report);
/** What the user can do about a document whose key was lost, as the CLI's JSON spells it
 *  ("repair", "importEscrow", "adopt", "repairAllowingUnrecorded", "copyBack",
 *  "forgetThenAdopt"; more may come), or NULL when there is nothing to do or nothing docbm can do. Owned by `report`. */
const char *docbm_repair_report_remedy(const docbm_repair_report *report);
/** The recorded document the remedy is about (the one that still carries the key, or where
 *  the key's document was recorded and no longer is), or NULL. Owned by `report`. */
const char *docbm_repair_report_recorded_document(const docbm_repair_report *report);
/** The remedy in one sentence, as `docbm check` gives it, or NULL. Owned by `report`. */
const char *docbm_repair_report_advice(const docbm_repair_report *report);
/** The document's verdict after the repair (before it, when nothing was done). */
docbm_verdict docbm_repair_report_verdict(const docbm_repair_report *report);
/** Releases a repair report. NULL is allowed. */
void docbm_repair_report_free(docbm_repair_report *report);

/* ---------------------------------------------------------------------------------- */
/* The user's escrow                                                                    */
/* ---------------------------------------------------------------------------------- */

/*
 * The user's escrow (the one DOCBM_USER_ESCROW names: $DOCBM_ESCROW_DIR, else
 * $XDG_STATE_HOME/docbm, else ~/.local/state/docbm) keeps every key docbm made on this
 * account and the documents each was made for, so that docbm_repair() can put a lost key
 * back. These calls list it, and move its keys to another machine of the user's: export
 * there, import here, then docbm_repair() the copies that arrived without their keys.
 */

/** The keys of the user's escrow, as they were when listed. */
typedef struct docbm_escrow_entries docbm_escrow_entries;

/**
 * Lists the keys of the user's escrow, by fingerprint; an empty list when no key was
 * escrowed yet. The keys themselves stay inside the library: an entry shows only its
 * fingerprint. Fails with DOCBM_ESCROW_UNTRUSTED (the folder or database is another
 * user's, a symbolic link, or open to others) or DOCBM_ESCROW_DAMAGED (it cannot be read).
 */
docbm_escrow_entries *docbm_escrow_list(docbm_error **error);

/** How many keys the list holds. */
size_t docbm_escrow_entries_count(const docbm_escrow_entries *entries);
/** Key `index`'s fingerprint ("11b3ce0d-45fb77c3"), as docbm_watch_event_key() and
 *  `docbm escrow list` give it, or NULL past the end. Owned by `entries`. */
const char *docbm_escrow_entry_key(const docbm_escrow_entries *entries, size_t index);
/** When key `index` was first escrowed, in nanoseconds since 1970; -1 past the end. */
long long docbm_escrow_entry_created(const docbm_escrow_entries *entries, size_t index);
/** How many documents key `index` was made for (0 past the end), the most recently
 *  confirmed last. */
size_t docbm_escrow_entry_document_count(const docbm_escrow_entries *entries, size_t index);
/** The path of document `document` of key `index` when docbm last confirmed it, or NULL
 *  past the end of either. Owned by `entries`. */
const char *docbm_escrow_entry_document_path(const docbm_escrow_entries *entries, size_t index, size_t document);
/** How that document became the key's ("bookmarked", "saved", "repaired", "successor",
 *  "moved", "imported", "transferred"; more may come), or NULL past the end. Owned by
 *  `entries`. */
const char *docbm_escrow_entry_document_origin(const docbm_escrow_entries *entries, size_t index,
                                               size_t document);
/** When docbm last found that document to be the key's, in nanoseconds since 1970; -1 past
 *  the end. */
long long docbm_escrow_entry_document_confirmed(const docbm_escrow_entries *entries, size_t index,
                                                size_t document);
/** Releases an escrow list. NULL is allowed. */
void docbm_escrow_entries_free(docbm_escrow_entries *entries);

/**
 * Writes the user's escrow (keys and document records) to `file`, for another machine of
 * the user's, and stores how many keys and document records it wrote in `*keys` and
 * `*documents` (either may be NULL). The file holds the keys themselves: whoever reads it
 * can forge bookmarks for every document they anchor. It is made with mode 0600 and given
 * its name only once written and flushed, so no half-written export and no copy readable
 * by others is ever at `file`; if someone else replaces or moves it before the call
 * returns (in a folder others can write), the copy written is erased and the call fails.
 * Returns 0, or -1 on failure: DOCBM_NOT_FOUND (no key was escrowed yet),
 * DOCBM_DOCUMENT_EXISTS (`file` exists and `replacing` is 0), DOCBM_UNSUPPORTED_FILE_TYPE
 * (`file` is not a regular file: an export is never written through a FIFO, device or
 * symbolic link), DOCBM_ESCROW_UNTRUSTED, DOCBM_ESCROW_DAMAGED, DOCBM_NO_SPACE,
 * DOCBM_PERMISSION_DENIED, ... (then nothing is left at `file`).
 */
int docbm_escrow_export(const char *file, int replacing, size_t *keys, size_t *documents, docbm_error **error);

/**
 * Adds the keys and document records of an export (docbm_escrow_export() or `docbm escrow
 * export`, on this machine or another) to the user's escrow in one transaction, and
 * stores how many keys and records it added, and how many of the file's keys the escrow
 * held already, in `*keys`, `*documents` and `*keys_already_held` (each may be NULL).
 * Nothing in the file is trusted that cannot be checked: it must be a regular file of the
 * user's that nobody else can read or write, at most 256 MiB, docbm's escrow format,
 * undamaged, each key matching its fingerprint. An imported record is the other escrow's
 * word: its key goes back only on a document whose own bookmarks name it (docbm_repair()).
 * Returns 0, or -1 on failure: DOCBM_NOT_FOUND, DOCBM_ESCROW_UNTRUSTED (a symbolic link,
 * another user's file, or one others can read or write), DOCBM_UNSUPPORTED_FILE_TYPE,
 * DOCBM_ESCROW_DAMAGED (not an export, damaged, or naming a key the escrow holds with other
 * bytes: then nothing is imported), or the escrow's own failures.
 */
int docbm_escrow_import(const char *file, size_t *keys, size_t *documents, size_t *keys_already_held,
                        docbm_error **error);

/* ---------------------------------------------------------------------------------- */
/* A store of remembered files                                                          */
/* ---------------------------------------------------------------------------------- */

/**
 * An app's list of remembered files and folders (recent documents, places), each a record
 * under a key, with a bookmark that follows its target through renames and moves. The
 * store is an SQLite file anchored on itself (`docbm check` and `docbm repair` work on
 * it); it is Swift's `BookmarkStore` with string keys, and the `docbm store` command
 * reads and changes it too. Several processes may share one store: each change is one
 * transaction, and each open store sees the others' changes within moments.
 */
typedef struct docbm_store docbm_store;

/** One record, as it was when read. Its key is the UTF-8 string it was added under (a
 *  record another app's store keyed with another type shows the key's JSON text). A key
 *  given to a call is not empty and is UTF-8, else DOCBM_INVALID_ARGUMENT. */
typedef struct docbm_store_record docbm_store_record;

/** A store's records in its order, as they were when read. */
typedef struct docbm_store_records docbm_store_records;

/**
 * Opens the store kept at `path` and reads it; a store not made yet is empty, and its
 * file (and folder, mode 0700) is made by the first change. With `recents_limit` 0 the
 * records stay in the order they were added, and adding a target the store holds returns
 * its record; with a limit it is a list of recent documents: the most recently used
 * first, at most `recents_limit` records, gone ones evicted first. New keys are escrowed
 * in the user's escrow. The store follows other processes' changes and the user's mounts
 * on threads of its own until it is closed.
 *
 * Fails with DOCBM_NOT_A_STORE, DOCBM_STORE_NEWER_VERSION, DOCBM_STORE_UNTRUSTED,
 * DOCBM_STORE_CORRUPT, or a docbm code (DOCBM_PERMISSION_DENIED, ...).
 */
docbm_store *docbm_store_open(const char *path, size_t recents_limit, docbm_error **error);

/** Closes the store: its threads stop. NULL is allowed. */
void docbm_store_close(docbm_store *store);

/** The store file's path: absolute, a symbolic link at its end followed. */
const char *docbm_store_path(const docbm_store *store);

/**
 * Adds `target` (a file or folder) with a bookmark, under `key`, or under its path when
 * `key` is NULL (as text: bytes that are not UTF-8, control characters and backslashes
 * escaped as \xNN, as `docbm store add` keys it; docbm_store_record_key() gives it), and
 * returns its record. A key the store holds already is given the new
 * target. Fails with a docbm code when the target cannot be bookmarked (DOCBM_NOT_FOUND,
 * ...) or the store cannot be written.
 */
docbm_store_record *docbm_store_add(docbm_store *store, const char *target, const char *key, docbm_error **error);

/** Adds `path` without touching it (it need not exist, or its disk may be away): its
 *  record gets a bookmark when docbm_store_resolve() first reaches it. */
docbm_store_record *docbm_store_add_path_only(
    docbm_store *store, const char *path, const char *key, docbm_error **error);

/**
 * Finds the target of the record under `key` (following renames and moves, refreshing
 * its bookmark) and returns the record as the store now holds it: its path is where the
 * target is, its state says whether it was found. Fails with DOCBM_NO_SUCH_KEY, or
 * the resolution's docbm code (DOCBM_MISSING, DOCBM_VOLUME_UNAVAILABLE, ...), which the
 * record's state keeps too.
 */
docbm_store_record *docbm_store_resolve(docbm_store *store, const char *key, docbm_error **error);

/** Pins (`pinned` non-zero) or unpins the record under `key`: a recent-documents store
 *  evicts pinned records last. Fails with DOCBM_NO_SUCH_KEY. */
docbm_store_record *docbm_store_set_pinned(docbm_store *store, const char *key, int pinned, docbm_error **error);

/** Gives the record under `key` the metadata `json`, JSON text of any value (an object, a
 *  string, ...): what the app keeps with the file (a display name, a cursor position).
 *  Records added from C have `{}`. Fails with DOCBM_INVALID_ARGUMENT for text that does
 *  not parse as JSON, DOCBM_NO_SUCH_KEY. */
docbm_store_record *docbm_store_set_metadata(docbm_store *store, const char *key, const char *json,
                                             docbm_error **error);

/** Marks the record under `key` used now (a recent-documents store puts it first).
 *  Fails with DOCBM_NO_SUCH_KEY. */
docbm_store_record *docbm_store_mark_used(docbm_store *store, const char *key, docbm_error **error);

/** Forgets the record under `key`: returns 1, or 0 when the store has no such record, or
 *  -1 when the store cannot be written. */
int docbm_store_forget(docbm_store *store, const char *key, docbm_error **error);

/** Reads the store file and returns its records. */
docbm_store_records *docbm_store_list(docbm_store *store, docbm_error **error);

/** Resolves every record again and keeps each one's state; returns how many failed (their
 *  records say why), or -1 when the store cannot be read or written. */
long docbm_store_refresh(docbm_store *store, docbm_error **error);

/**
 * A descriptor that becomes readable (poll(2) POLLIN) when the store's records change,
 * by this process's calls or another's: watch it in the app's main loop (GLib's
 * g_unix_fd_add(), Qt's QSocketNotifier), then call docbm_store_take_changes() and
 * docbm_store_list(). It belongs to the store; do not read or close it.
 */
int docbm_store_change_descriptor(const docbm_store *store);

/** How many changes were seen since the last call (0 if none); the descriptor is not
 *  readable after it until the next change. */
unsigned long docbm_store_take_changes(docbm_store *store);

/** How many records the list holds. */
size_t docbm_store_records_count(const docbm_store_records *records);
/** The record at `index` (NULL past the end); it belongs to the list. */
const docbm_store_record *docbm_store_records_at(const docbm_store_records *records, size_t index);
void docbm_store_records_free(docbm_store_records *records);

/** What a store last learned of a record's target. Mirrors `RecordStatus`. */
typedef enum docbm_record_state {
  /** Not resolved yet (a new path-only record, or a state this version cannot read). */
  DOCBM_RECORD_UNKNOWN = 0,
  /** The last resolution found the target. */
  DOCBM_RECORD_AVAILABLE = 1,
  /** The last resolution failed: docbm_store_record_failure() says how. */
  DOCBM_RECORD_UNAVAILABLE = 2
} docbm_record_state;

/** The name Swift gives `state` ("unknown", "available", "unavailable"), or NULL. */
const char *docbm_record_state_name(docbm_record_state state);

const char *docbm_store_record_key(const docbm_store_record *record);
/** Where the target was last known to be. */
const char *docbm_store_record_path(const docbm_store_record *record);
/** The record's metadata as JSON text (object keys sorted); `{}` when none was set. */
const char *docbm_store_record_metadata(const docbm_store_record *record);
docbm_record_state docbm_store_record_state(const docbm_store_record *record);
/** Why the last resolution failed (DOCBM_MISSING, ...), or 0 unless unavailable. */
docbm_code docbm_store_record_failure(const docbm_store_record *record);
int docbm_store_record_is_pinned(const docbm_store_record *record);
/** 1 when the record has a bookmark (a path-only record has none until first resolved). */
int docbm_store_record_has_bookmark(const docbm_store_record *record);
/** 1 when the target is gone for good: missing, its bookmark corrupt, or in a Trash. A
 *  target on an unmounted disk, a lost key or a permission problem may pass. */
int docbm_store_record_is_gone(const docbm_store_record *record);
/** 1 when the record's path is inside a Trash folder. */
int docbm_store_record_is_in_trash(const docbm_store_record *record);
/** When the record was added, in nanoseconds since 1970 (UTC). */
long long docbm_store_record_created(const docbm_store_record *record);
/** When the record was last marked used, in nanoseconds since 1970, or -1 if never. */
long long docbm_store_record_last_used(const docbm_store_record *record);
void docbm_store_record_free(docbm_store_record *record);

/* ---------------------------------------------------------------------------------- */
/* Watching documents                                                                   */
/* ---------------------------------------------------------------------------------- */

/**
 * Follows documents, not paths, while other programs rename, move, replace, delete or
 * strip them: Swift's `DocumentWatcher`. The watcher runs on a thread of its own from the
 * moment it is made; its events wait in order until read. Watch its descriptor in the
 * app's main loop, then read events with docbm_watcher_next_event() until it returns NULL.
 */
typedef struct docbm_watcher docbm_watcher;

/** One event. */
typedef struct docbm_watch_event docbm_watch_event;

/** How a watcher watches (bits, or-ed). */
typedef enum docbm_watch_flags {
  /** Put back a key that a save dropped, from the user's escrow and only under repair's
   *  rules (the document is the user's, the escrow recorded it for that key). */
  DOCBM_WATCH_REPAIRS = 1,
  /** Watch only the folders given, not the folders under them. */
  DOCBM_WATCH_NOT_RECURSIVE = 2
} docbm_watch_flags;

/**
 * Watches the `count` folders (recursively unless DOCBM_WATCH_NOT_RECURSIVE) and every
 * file carrying a key in them; documents seen at new paths are recorded in the user's
 * escrow, as `docbm check` records them. Fails with DOCBM_NOT_FOUND, DOCBM_PERMISSION_DENIED
 * or DOCBM_UNSUPPORTED_FILE_TYPE for a folder, DOCBM_SYSTEM_FAILURE when no inotify
 * instance, watch or thread can be made (the user's limits).
 */
docbm_watcher *docbm_watcher_watch_folders(
    const char *const *folders, size_t count, unsigned flags, docbm_error **error);

/** Follows the `count` documents (files or folders) wherever they go in their folders. */
docbm_watcher *docbm_watcher_follow_documents(
    const char *const *documents, size_t count, unsigned flags, docbm_error **error);

/** A descriptor readable (poll(2) POLLIN) while events wait to be read. It belongs to the
 *  watcher; do not read or close it. */
int docbm_watcher_descriptor(const docbm_watcher *watcher);

/** The oldest event not read yet, or NULL when none waits. */
docbm_watch_event *docbm_watcher_next_event(docbm_watcher *watcher);

/** 1 when every folder given is gone (removed or unmounted): the watcher has stopped by
 *  itself after a DOCBM_EVENT_FOLDER_GONE event for the last one. */
int docbm_watcher_has_nothing_left(const docbm_watcher *watcher);

/** Stops the watcher (waiting for its thread) and releases it. NULL is allowed. */
void docbm_watcher_close(docbm_watcher *watcher);

/** What happened. Mirrors `DocumentEvent.Kind`; `docbm watch --json` prints the names. */
typedef enum docbm_event_kind {
  /** A file carrying a key came into the watched folders. */
  DOCBM_EVENT_APPEARED = 1,
  /** Renamed or moved within the watched folders: same file, new path. */
  DOCBM_EVENT_MOVED = 2,
  /** Another file took the document's place (another program's atomic save): reload it,
   *  unless docbm_watch_event_is_own_save(). */
  DOCBM_EVENT_REPLACED = 3,
  /** Written in place (same file, new contents). */
  DOCBM_EVENT_MODIFIED = 4,
  /** Removed, and nothing took its place. */
  DOCBM_EVENT_DELETED = 5,
  /** Moved out of the watched folders, to where is not known. */
  DOCBM_EVENT_MOVED_OUT = 6,
  /** The document no longer carries its key (docbm_watch_event_key()): a save dropped it. */
  DOCBM_EVENT_KEY_LOST = 7,
  /** Repair put the escrowed key back (with DOCBM_WATCH_REPAIRS). */
  DOCBM_EVENT_KEY_RESTORED = 8,
  /** Repair refused to put a key back: the trust rules did not hold. */
  DOCBM_EVENT_REPAIR_REFUSED = 9,
  /** The kernel dropped events; the folders were listed again and changes reported. */
  DOCBM_EVENT_RESCANNED = 10,
  /** A folder could not be watched (the watch limit, permissions): see the message. */
  DOCBM_EVENT_NOT_WATCHED = 11,
  /** A folder given to the watcher is gone: removed, or its filesystem unmounted. */
  DOCBM_EVENT_FOLDER_GONE = 12
} docbm_event_kind;

/** The name Swift gives `kind` ("moved", "keyLost", ...), or NULL. */
const char *docbm_event_kind_name(docbm_event_kind kind);

docbm_event_kind docbm_watch_event_kind(const docbm_watch_event *event);
/** Where the document is now (or the folder a notice is about), or NULL. */
const char *docbm_watch_event_path(const docbm_watch_event *event);
/** Where the document was, when it moved or was replaced, or NULL. */
const char *docbm_watch_event_old_path(const docbm_watch_event *event);
/** The document's key fingerprint (for DOCBM_EVENT_KEY_LOST, the key lost), or NULL. */
const char *docbm_watch_event_key(const docbm_watch_event *event);
/** 1 when the file that replaced the document, or appeared, is this process's own save
 *  (docbm_replace_document(), docbm_save_copy(), docbm_document_create()). */
int docbm_watch_event_is_own_save(const docbm_watch_event *event);
/** One line for a person. */
const char *docbm_watch_event_message(const docbm_watch_event *event);
void docbm_watch_event_free(docbm_watch_event *event);

/* ---------------------------------------------------------------------------------- */
/* The save-safety lint, for an app's tests                                             */
/* ---------------------------------------------------------------------------------- */

/**
 * An app's save, under test: saves a new version of the document at `path` as the app
 * does (`path` is a scratch document with a key, other attributes, mode 0640 and a
 * bookmark stored in it). Returns 0 when it saved, anything else when it failed.
 */
typedef int (*docbm_save_function)(const char *path, void *context);

/** What the lint concluded. Mirrors `SaveProbeReport.Verdict`; names are frozen. */
typedef enum docbm_lint_verdict {
  /** The save kept the key, the other attributes, the mode, the owner and the links. */
  DOCBM_LINT_KEPT = 1,
  /** It kept everything but left files beside the document (a backup, a temporary). */
  DOCBM_LINT_KEPT_LEAVING_FILES = 2,
  /** It lost something of the document (the key, attributes, mode, ...), or failed. */
  DOCBM_LINT_LOST = 3,
  /** It did not write the document: nothing was tested. */
  DOCBM_LINT_NOT_SAVED = 4
} docbm_lint_verdict;

/** A lint verdict's name ("keptLeavingFiles"), or NULL for an unknown value. Static. */
const char *docbm_lint_verdict_name(docbm_lint_verdict verdict);

/** What the lint found. */
typedef struct docbm_lint_report docbm_lint_report;

/**
 * Runs `save` once, on the calling thread, on a new scratch document made in `folder`
 * (NULL: the working folder; not /tmp, where editors save differently), and reports what
 * it broke; the scratch document is removed afterwards. A save that fails or loses
 * something is a report, not an error. Fails with DOCBM_INVALID_ARGUMENT (no `save`), or
 * when the scratch document cannot be made (DOCBM_PERMISSION_DENIED,
 * DOCBM_UNSUPPORTED_FILESYSTEM, ...).
 */
docbm_lint_report *docbm_lint_save(docbm_save_function save, void *context, const char *folder, docbm_error **error);

/** The verdict. */
docbm_lint_verdict docbm_lint_report_verdict(const docbm_lint_report *report);
/** 1 when the save wrote the document, kept everything and left nothing behind, else 0. */
int docbm_lint_report_is_safe(const docbm_lint_report *report);
/** The findings and notes, one per line, for a test's failure message. Owned by `report`. */
const char *docbm_lint_report_summary(const docbm_lint_report *report);
/** How many findings there are. */
size_t docbm_lint_report_finding_count(const docbm_lint_report *report);
/** Finding `index`'s kind ("keyLost", "modeChanged", ...), or NULL past the end. Static. */
const char *docbm_lint_report_finding_kind(const docbm_lint_report *report, size_t index);
/** What finding `index` saw, or NULL past the end. Owned by `report`. */
const char *docbm_lint_report_finding_message(const docbm_lint_report *report, size_t index);
/** How to fix finding `index`, or NULL past the end. Owned by `report`. */
const char *docbm_lint_report_finding_fix(const docbm_lint_report *report, size_t index);
/** Releases a lint report. NULL is allowed. */
void docbm_lint_report_free(docbm_lint_report *report);

/* ---------------------------------------------------------------------------------- */
/* Faults for an app's own tests                                                      */
/* ---------------------------------------------------------------------------------- */

/*
 * An app's "disk full", "file missing", "disk offline", "key lost" and "still resolving"
 * states, reached in its tests without filling or unplugging disks. A fault holds for the
 * whole process, on every thread, from the call that installs it until
 * docbm_test_fault_end(), and only for the files inside its folder: tests that each work
 * in a scratch folder of their own can run at the same time. A second fault of the same
 * kind for a folder that holds the first one's, or is inside it, is refused
 * (DOCBM_INVALID_ARGUMENT), since which call should fail would be unclear. The failures
 * are the real ones: the code, path, last known path, recommendation, errno and step a
 * real failure gives (a failed resolve's message ends "(a fault injected for a test)").
 */

/** A fault a test installed, removed with docbm_test_fault_end(). */
typedef struct docbm_test_fault docbm_test_fault;

/** The steps of a save, in order. Values mirror DocumentBookmarks' `SaveStep`. */
typedef enum docbm_save_step {
  /** Finding the document, its folder, and what to keep of it. */
  DOCBM_STEP_INSPECT_DOCUMENT = 1,
  /** Checking the folder is writable, naming the new version's entry. */
  DOCBM_STEP_PREPARE_TEMPORARY = 2,
  /** Writing the new contents (the caller's writer, for the writer forms). */
  DOCBM_STEP_WRITE = 3,
  /** Opening what the writer wrote. */
  DOCBM_STEP_OPEN_WRITTEN = 4,
  /** Giving the new version the document's owner and group. */
  DOCBM_STEP_CHANGE_OWNER = 5,
  /** Copying the extended attributes, the key among them. */
  DOCBM_STEP_COPY_ATTRIBUTES = 6,
  /** Giving the new version the document's permission bits. */
  DOCBM_STEP_CHANGE_MODE = 7,
  /** Copying the access (and, for folders, default) ACL. */
  DOCBM_STEP_COPY_ACL = 8,
  /** Flushing the new version to the device. */
  DOCBM_STEP_SYNC_FILE = 9,
  /** Renaming the new version into place. */
  DOCBM_STEP_SWAP = 10,
  /** Flushing the folder, so that the rename itself is durable. */
  DOCBM_STEP_SYNC_FOLDER = 11
} docbm_save_step;

/** A save step's name ("copyAttributes"), as docbm_error_step() gives it, or NULL for an
 *  unknown value. Static. */
const char *docbm_save_step_name(docbm_save_step step);

/**
 * The next save by docbm (docbm_replace_document*, docbm_save_copy*) of a document inside
 * `folder` (NULL: of any document) fails at `step` as if its system call had returned
 * `errnum`: ENOSPC gives DOCBM_NO_SPACE, EIO DOCBM_IO_ERROR, EACCES
 * DOCBM_PERMISSION_DENIED, with docbm_error_step() naming the step. The document stays as
 * it was; later saves succeed. Fails with DOCBM_INVALID_ARGUMENT for a step docbm.h does
 * not list, an `errnum` that is not above 0, or another save fault covering the folder.
 */
docbm_test_fault *docbm_test_fail_save(const char *folder, docbm_save_step step, int errnum, docbm_error **error);

/**
 * The next save by docbm of a document inside `folder` (NULL: of any document) stops just
 * before its rename, as a crash there would: the save fails with DOCBM_IO_ERROR at
 * DOCBM_STEP_SWAP, the document is the old version, and the new one is left beside it
 * under a hidden name, for the test to see. docbm_test_fault_end() removes what it left.
 * Fails with DOCBM_INVALID_ARGUMENT when another save fault covers the folder.
 */
docbm_test_fault *docbm_test_crash_save(const char *folder, docbm_error **error);

/**
 * Every resolve (docbm_resolve, docbm_resolve_all, docbm_store_resolve, ...) against a
 * document inside `folder` fails with `code`, one of DOCBM_MISSING (recommendation
 * forget), DOCBM_VOLUME_UNAVAILABLE (retryLater), DOCBM_KEY_MISSING (repairKey) or
 * DOCBM_IO_ERROR (retryLater, errno EIO). With `targets`, only bookmarks whose recorded
 * target is inside that folder fail (one project's images, one disk's files); the others
 * resolve as usual. Fails with DOCBM_INVALID_ARGUMENT (no `folder`, another `code`, or
 * another resolve fault covering the folder).
 */
docbm_test_fault *docbm_test_fail_resolves(const char *folder, docbm_code code, const char *targets,
                                           docbm_error **error);

/**
 * Every resolve against a document inside `folder` (of a bookmark whose target is inside
 * `targets`, when given) waits, holding its thread, until docbm_test_fault_open() or
 * docbm_test_fault_end(); then it resolves for real. For testing what an app shows while
 * resolving is slow. Fails as docbm_test_fail_resolves() does.
 */
docbm_test_fault *docbm_test_hold_resolves(const char *folder, const char *targets, docbm_error **error);

/** How many resolves have reached a docbm_test_hold_resolves() fault so far (waiting or let
 *  go); 0 for other faults. */
size_t docbm_test_fault_held_count(const docbm_test_fault *fault);

/** Blocks until `count` resolves have reached a docbm_test_hold_resolves() fault; returns
 *  at once for other faults. Never call it on a thread a held resolve needs. */
void docbm_test_fault_wait_until_held(const docbm_test_fault *fault, size_t count);

/** Lets every resolve waiting at a docbm_test_hold_resolves() fault go on, and later ones
 *  pass without waiting; nothing for other faults. */
void docbm_test_fault_open(const docbm_test_fault *fault);

/**
 * Every read of a store file inside `folder` (docbm_store_open, and the reads a store's
 * calls start with) fails as if `read` had returned `errnum`: EIO gives DOCBM_IO_ERROR,
 * EACCES DOCBM_PERMISSION_DENIED. Fails with DOCBM_INVALID_ARGUMENT (no `folder`, an
 * `errnum` that is not above 0, or another store read fault covering the folder).
 */
docbm_test_fault *docbm_test_fail_store_reads(const char *folder, int errnum, docbm_error **error);

/** Removes a fault: the calls it reached behave as usual again, held resolves go on, and
 *  what a crashed save left is removed. Releases `fault`. NULL is allowed. */
void docbm_test_fault_end(docbm_test_fault *fault);

#ifdef __cplusplus
}
#endif

#endif /* DOCBM_H */
