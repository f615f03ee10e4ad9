/// The subcommands of `docbm`.
enum CommandName: String, CaseIterable, Sendable {
  case bookmark, resolve, decode, inspect, check, repair, adopt, relink, save, probe, store, watch, escrow,
    demo, completions, help

  /// One line for the command list.
  var abstract: String {
    switch self {
    case .bookmark: "Make a bookmark anchored on a document and print its text form."
    case .resolve: "Verify a bookmark against its document and print its target's path."
    case .decode: "Show a bookmark's fields without verifying them."
    case .inspect: "Show a document's key fingerprint and extended attributes."
    case .check: "Check whether the bookmarks in documents still work."
    case .repair: "Put escrowed keys back on documents that lost them."
    case .adopt: "Make a copy's unverifiable bookmarks its own, once you confirm."
    case .relink: "Find the targets of a folder tree that moved, and save the new bookmarks."
    case .save: "Replace a document with new contents, keeping its key and attributes."
    case .probe: "Run a program's save on a scratch document and report what it broke."
    case .store: "List and fix an app's store of remembered files and folders."
    case .watch: WatchCommand.abstract
    case .escrow: "List your escrowed keys, move them to another machine, or forget a document."
    case .demo: "Show document-scoped bookmarks at work in a scratch folder."
    case .completions: "Print a shell completion script for bash or zsh."
    case .help: "Show help for docbm or one of its subcommands."
    }
  }

  /// The full help text's body.
  var discussion: String {
    switch self {
    case .bookmark:
      """
      ARGUMENTS:
        DOCUMENT    The document (a file or a folder) that anchors the bookmark. Its key is
                    created in the user.docbm.key attribute if it has none.
        TARGET      The file or folder to bookmark. A symbolic link is followed. With
                    several, one bookmark per target, one per line, in order; a target
                    that fails leaves an empty line and its error on standard error
                    (exit status 1 when any failed).
      """
    case .resolve:
      """
      ARGUMENTS:
        DOCUMENT    The document whose key signed the bookmark.
        BOOKMARK    The bookmark's text form, or - to read bookmarks from standard
                    input, one per line, resolved together: one line of output per line
                    of input, in order (the path, or an empty line for a bookmark that
                    failed or is ambiguous; its notes on standard error start with
                    "line N:").

      When the bookmark is stale, the reasons and a refreshed bookmark are printed too.
      When the evidence cannot tell which of several files is the target (ambiguous),
      no path is printed: the candidates are listed on standard error. Exit status: 0
      resolved, 1 not resolved (the error code says why), 4 ambiguous; with -, 1 when
      any failed, else 4 when any is ambiguous, else 0.
      """
    case .decode:
      """
      ARGUMENTS:
        BOOKMARK    The bookmark's text form, or - to read one bookmark from standard
                    input.

      Nothing is verified: the fields are shown as recorded, marked UNVERIFIED.
      """
    case .inspect:
      """
      ARGUMENTS:
        DOCUMENT    The document to inspect.

      The key itself is never printed, only its fingerprint.
      """
    case .check:
      """
      ARGUMENTS:
        PATH        A document, or with --recursive a folder to walk (symbolic links are
                    never followed).

      One verdict per document: ok, noBookmarks, quotesBookmarks (not a problem),
      keyLost, keyMismatch, mixed, unsupportedFilesystem, unreadable, incomplete; then a summary. The escrow
      (DOCBM_ESCROW_DIR, XDG_STATE_HOME/docbm or ~/.local/state/docbm) is used as evidence.
      Exit status: 0 when every document is fine, 2 when any has a problem, 1 when a
      path named cannot be checked (it does not exist, is a symbolic link, or is a folder
      named without --recursive).
      """
    case .repair:
      """
      ARGUMENTS:
        PATH        A document of yours whose key was lost, or with --recursive a folder:
                    every document under it whose check says keyLost is repaired.

      Puts back an escrowed key only when the document has none, belongs to you, its own
      bookmarks (or the escrow's record of it) name that key, and the escrow recorded the
      key for this very document (its path, or the file itself). A pasted bookmark or a
      copy without its key is refused. Never invents or replaces a key. Exit status: 0
      when nothing was refused, 2 when a repair was refused, 1 when a path could not be
      read.
      """
    case .save:
      """
      ARGUMENTS:
        DOCUMENT    The document to replace (created if it does not exist). A symbolic link
                    is followed: the link stays, its target is replaced.

      The new version gets the document's key, other extended attributes, owner, mode and
      ACLs, is flushed, and is renamed over the document: an xattr-keeping sponge. On
      failure the document is untouched. Immutable and append-only documents and folders
      are refused before anything is written. Exit status: 0 saved, 1 not saved.
      """
    case .probe:
      """
      ARGUMENTS:
        COMMAND     The program to run, with its arguments. Every {} is replaced by the
                    scratch document's path; without {}, the path is appended.

      The scratch document is an ordinary one, with a key, a bookmark inside it pointing
      at a sibling file, two other user attributes and mode 0640. It is made in a hidden
      folder where documents live, not in /tmp, where editors save differently (the probe
      warns when it runs there), and removed afterwards, also on Ctrl-C. After the program
      ran, the probe reports what its save did to each. Exit status: 0 when the save kept
      everything (files left beside the document are reported), 2 when it lost something,
      3 when the program did not write the document (nothing tested), 1 when the probe
      itself failed, 128 + N when signal N stopped it.

      Example: docbm probe -- sed -i s/a/b/ {}
      """
    case .watch: WatchCommand.discussion
    case .demo:
      """
      Makes a scratch project, anchors bookmarks to files and a folder on a document,
      renames and moves the targets and the whole project, and resolves everything again.
      """
    case .completions:
      """
      ARGUMENTS:
        SHELL       bash or zsh.

      To install them for everyone ('make install' does both):
        docbm completions bash > /usr/share/bash-completion/completions/docbm
        docbm completions zsh > /usr/share/zsh/site-functions/_docbm
      Without root, install them under your home folder instead: bash-completion also
      reads ~/.local/share/bash-completion/completions, and zsh reads the folders in
      $fpath, so add fpath=(~/.local/share/zsh/site-functions $fpath) to ~/.zshrc before
      compinit.
      """
    case .help:
      """
      ARGUMENTS:
        SUBCOMMAND  The subcommand to describe.
      """
    case .store:
      """
      A store is an app's list of remembered files and folders (recent documents,
      places), kept in one SQLite file whose records hold bookmarks anchored on the store
      file itself. Each change is one transaction that reads and writes only the records
      it touches, so the app may be running, and the store may be of any size.

      ACTIONS:
        list STORE            Show each record: key, status, pin, path.
        add STORE PATH...     Bookmark each PATH and add it (the key is the path as given,
                              or --key). A target already in the store is not added twice.
        forget STORE KEY...   Remove the records with these keys.
        pin STORE KEY...      Pin records: eviction spares them unless they are gone.
        unpin STORE KEY...    Unpin records.
        refresh STORE [KEY...]
                              Resolve records (all, or those named) and store what was
                              found: status, where moved targets are now.
        follow STORE          Print each change to the store as it happens (made by any
                              process, or by a disk unmounted or mounted: its records
                              become unavailable and come back), until interrupted.
        export STORE          Print the store as JSON: every record, in order (to read,
                              compare or keep; a store of docbm 0.1 was this file).
        compact STORE         Rewrite the store file without its free space, and refresh
                              its last good copy (STORE.last-good).
        reanchor STORE        For a store file whose key is lost for good: bookmark each
                              record again at its last known path under a new key.

      A KEY is given as the app wrote it when it is a string, else as its JSON text.
      Exit status: 0 on success, 2 when refresh found records unavailable, 1 on error.
      """
    case .adopt:
      """
      ARGUMENTS:
        DOCUMENT    A document whose bookmarks do not verify: a copy that travelled
                    without its key (a sync, a git clone, an unzipped project) and that
                    repair cannot put a key back on.

      Lists each bookmark it cannot verify and what its recorded path relative to the
      document names here; then, once you say yes (at the terminal, or --yes), gives the
      document a key if it has none, makes a new bookmark to each target found, and
      saves the document with each text form replaced by its new bookmark (a binary or
      base64 form is not rewritten: its new text form is printed). The old bookmarks are
      never trusted: adopt only what you recognise as yours, since anyone can paste a
      bookmark into a file. Repair, watch --repair and check never adopt.
      Exit status: 0 adopted (or nothing to adopt), 1 not confirmed, no target found, or
      an error.
      """
    case .relink:
      """
      ARGUMENTS:
        DOCUMENT    The document whose bookmarks to relink.
        FROM        The folder the targets were in (their recorded paths start with it).
        TO          The folder that tree is now: each target is looked for at the same
                    place under it.

      On the targets' own filesystem the file there must be the very one recorded; on
      another (a project copied to a new disk) it must have the recorded kind, size and
      modification time. Anything else is listed, never taken. The document is saved
      with each relinked text form replaced by its new bookmark (a binary or base64
      form is not rewritten: its new text form is printed).
      Exit status: 0 when every bookmark under FROM was relinked, 1 otherwise.
      """
    case .escrow:
      """
      The escrow keeps every key docbm made on this account and the documents each
      was made for, so that repair can put back a key a save dropped. It is
      DOCBM_ESCROW_DIR, XDG_STATE_HOME/docbm or ~/.local/state/docbm.

      ACTIONS:
        list           Show each key's fingerprint, when it was made, and the
                       documents recorded for it. A key itself is never printed.
        export FILE    Write every key and record to FILE, a new file of mode 600
                       (--force replaces an existing file), for another machine
                       of yours. FILE holds the keys themselves: whoever reads it
                       can forge bookmarks for your documents. Move it only over
                       an encrypted channel (scp, an encrypted disk) and delete
                       it once imported.
        import FILE    Add the keys and records of an export to this escrow.
                       FILE must be yours and readable by nobody else. A
                       document at a recorded path that lost its key (synced,
                       cloned or copied without it) can then be repaired:
                       docbm repair PATH, when its own bookmarks name the key.
        forget PATH    Forget every record of a document at PATH (the keys
                       stay): for a document deleted and made again at its
                       name, which a new bookmark refuses (documentUnproven).
                       Exit 1 when nothing was recorded there.

      Exit status: 0 on success, 1 on error.
      """
    }
  }

  /// The subcommand a mistyped name most likely meant: the one within two edits (or the
  /// only one it begins), as git suggests for `git chek`.
  static func closest(to typed: String) -> CommandName? {
    let name = MistypedName.closest(to: typed.lowercased(), among: allCases.map(\.rawValue))
    return name.flatMap(CommandName.init(rawValue:))
  }

  /// The actions a subcommand takes as its first operand (`store list`, `escrow export`),
  /// for completion scripts; none for the others.
  var actions: [String] {
    switch self {
    case .store: StoreSettings.Action.allCases.map(\.rawValue)
    case .escrow: EscrowSettings.Action.allCases.map(\.rawValue)
    default: []
    }
  }

  /// Whether the subcommand's operands are paths (for completion scripts).
  var takesPaths: Bool {
    switch self {
    case .bookmark, .resolve, .inspect, .check, .repair, .adopt, .relink, .save, .store, .watch, .escrow: true
    case .decode, .probe, .demo, .completions, .help: false
    }
  }
}
