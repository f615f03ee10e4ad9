/// The subcommands of `docbm`.
enum CommandName: String, CaseIterable, Sendable {
  case bookmark, resolve, decode, inspect, check, repair, save, probe, demo, completions, help

  /// The usage line, without the leading `docbm`.
  var usage: String {
    switch self {
    case .bookmark: "bookmark [--json] DOCUMENT TARGET"
    case .resolve: "resolve [--json] DOCUMENT BOOKMARK"
    case .decode: "decode [--json] BOOKMARK"
    case .inspect: "inspect [--json] DOCUMENT"
    case .check: "check [--json] [--recursive] PATH..."
    case .repair: "repair [--json] [--allow-unrecorded] DOCUMENT..."
    case .save: "save [--json] [--from FILE] [--split-hard-links] [--allow-owner-change] DOCUMENT"
    case .probe:
      "probe [--json] [--in DIR] [--strict] [--through-link] [--without-hard-link] [--] COMMAND [ARG...]"
    case .demo: "demo"
    case .completions: "completions bash|zsh"
    case .help: "help [SUBCOMMAND]"
    }
  }

  /// One line for the command list.
  var abstract: String {
    switch self {
    case .bookmark: "Make a bookmark anchored on a document and print its text form."
    case .resolve: "Verify a bookmark against its document and print its target's path."
    case .decode: "Show a bookmark's fields without verifying them."
    case .inspect: "Show a document's key fingerprint and extended attributes."
    case .check: "Check whether the bookmarks in documents still work."
    case .repair: "Put escrowed keys back on documents that lost them."
    case .save: "Replace a document with new contents, keeping its key and attributes."
    case .probe: "Run a program's save on a scratch document and report what it broke."
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
        TARGET      The file or folder to bookmark. A symbolic link is followed.

      OPTIONS:
        --json      Print a JSON object (docs/cli.md) instead of the text form.
      """
    case .resolve:
      """
      ARGUMENTS:
        DOCUMENT    The document whose key signed the bookmark.
        BOOKMARK    The bookmark's text form, or - to read it from standard input.

      OPTIONS:
        --json      Print a JSON object (docs/cli.md).

      When the bookmark is stale, the reasons and a refreshed bookmark are printed too.
      Exit status: 0 resolved, 1 not resolved (the error code says why).
      """
    case .decode:
      """
      ARGUMENTS:
        BOOKMARK    The bookmark's text form, or - to read it from standard input.

      OPTIONS:
        --json      Print a JSON object (docs/cli.md).

      Nothing is verified: the fields are shown as recorded, marked UNVERIFIED.
      """
    case .inspect:
      """
      ARGUMENTS:
        DOCUMENT    The document to inspect.

      OPTIONS:
        --json      Print a JSON object (docs/cli.md).

      The key itself is never printed, only its fingerprint.
      """
    case .check:
      """
      ARGUMENTS:
        PATH        A document, or with --recursive a folder to walk (symbolic links are
                    never followed).

      OPTIONS:
        --recursive  Check every file under the folders given.
        --json       Print a JSON object (docs/cli.md).

      One verdict per document: ok, noBookmarks, keyLost, keyMismatch, mixed,
      unsupportedFilesystem, unreadable. The escrow (DOCBM_ESCROW_DIR, XDG_STATE_HOME/docbm or
      ~/.local/state/docbm) is used as evidence. Exit status: 0 when every document is fine,
      2 when any has a problem, 1 when the check itself failed.
      """
    case .repair:
      """
      ARGUMENTS:
        DOCUMENT    A document of yours whose key was lost.

      OPTIONS:
        --allow-unrecorded   Also repair a file the escrow never recorded for the key (a
                             copy of yours made without the key), when its own bookmarks
                             name the key and verify with it. This gives the key away:
                             anyone who can read that file can then forge bookmarks for
                             every document that carries the key.
        --json               Print a JSON object (docs/cli.md).

      Puts back an escrowed key only when the document has none, belongs to you, its own
      bookmarks (or the escrow's record of it) name that key, and the escrow recorded the
      key for this very document (its path, or the file itself). A pasted bookmark or a
      copy without its key is refused. Never invents or replaces a key. Exit status: 0
      when nothing was refused, 2 when a repair was refused.
      """
    case .save:
      """
      ARGUMENTS:
        DOCUMENT    The document to replace (created if it does not exist). A symbolic link
                    is followed: the link stays, its target is replaced.

      OPTIONS:
        --from FILE           Read the new contents from FILE instead of standard input.
        --split-hard-links    Save even when the document has other hard links (they keep
                              the old version). Without it such a save is refused.
        --allow-owner-change  Save even when the new version cannot keep the document's
                              owner or group (another user's document in a folder you may
                              write): the document becomes yours, and its owner loses the
                              owner's permissions and the right to change its mode. Without
                              it such a save is refused before anything is written.
        --json                Print a JSON object (docs/cli.md).

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

      OPTIONS:
        --in DIR             Make the scratch folder in DIR (default: the current folder).
        --strict             Files left beside the document count as a problem (exit 2).
        --through-link       Give the program a symbolic link to the document.
        --without-hard-link  Do not give the document a second name.
        --json               Print a JSON object (docs/cli.md).

      The scratch document has a key, a bookmark inside it pointing at a sibling file, two
      other user attributes, mode 0640 and a second hard link. It is made in a hidden
      folder where documents live, not in /tmp, where editors save differently (the probe
      warns when it runs there), and removed afterwards, also on Ctrl-C. After the program
      ran, the probe reports what its save did to each. Exit status: 0 when the save kept
      everything (files left beside the document are reported), 2 when it lost something,
      3 when the program did not write the document (nothing tested), 1 when the probe
      itself failed, 128 + N when signal N stopped it.

      Example: docbm probe -- sed -i s/a/b/ {}
      """
    case .demo:
      """
      Makes a scratch project, anchors bookmarks to files and a folder on a document,
      renames and moves the targets and the whole project, and resolves everything again.
      """
    case .completions:
      """
      ARGUMENTS:
        SHELL       bash or zsh.

      Install with: docbm completions bash > /usr/share/bash-completion/completions/docbm
                    docbm completions zsh > /usr/share/zsh/site-functions/_docbm
      ('make install' does both.)
      """
    case .help:
      """
      ARGUMENTS:
        SUBCOMMAND  The subcommand to describe.
      """
    }
  }

  /// The options the subcommand takes (for completion scripts).
  var options: [String] {
    switch self {
    case .bookmark, .resolve, .decode, .inspect: ["--json", "--help"]
    case .repair: ["--json", "--allow-unrecorded", "--help"]
    case .check: ["--json", "--recursive", "--help"]
    case .save: ["--json", "--from", "--split-hard-links", "--allow-owner-change", "--help"]
    case .probe: ["--json", "--in", "--strict", "--through-link", "--without-hard-link", "--help"]
    case .demo, .completions, .help: ["--help"]
    }
  }

  /// Whether the subcommand's operands are paths (for completion scripts).
  var takesPaths: Bool {
    switch self {
    case .bookmark, .resolve, .inspect, .check, .repair, .save: true
    case .decode, .probe, .demo, .completions, .help: false
    }
  }
}
