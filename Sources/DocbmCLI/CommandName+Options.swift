/// Each subcommand's options and operands, declared once.
extension CommandName {
  /// The options the subcommand takes, in the order its help lists them (`-h`, `--help`
  /// comes last, for every subcommand: ``CommandOption/help``).
  var options: [CommandOption] {
    switch self {
    case .bookmark:
      [
        .json(
          "Print a JSON object (see docbm(1)) instead of the text form; with several targets, one object per line."
        )
      ]
    case .resolve:
      [
        CommandOption(
          "--choose", value: "PATH", valueKind: .file,
          help:
            "When the evidence cannot tell which file is the target (ambiguous), take PATH, one of the candidates listed, and print a refreshed bookmark that keeps the choice."
        )
      ]
        + SearchSettings.options + [.json("Print a JSON object (see docbm(1)); with -, one object per line.")]
    case .decode, .inspect: [.json()]
    case .check:
      [
        CommandOption("--recursive", "-r", "-R", help: "Check every file under the folders given."),
        CommandOption(
          "--all", "-a",
          help:
            "List every document; with --recursive only those with a problem are listed unless this is given."
        ),
        CommandOption(
          "--explain",
          help:
            "Under each document whose key was lost, say why 'docbm repair' would put it back or refuse it, as repair says it (the hint gives only what to do)."
        ),
        .progress, .noProgress,
      ] + SearchSettings.options + [.json()]
    case .repair:
      [
        CommandOption(
          "--recursive", "-r", "-R", help: "Repair the documents under the folders given that lost their key."
        ),
        CommandOption("--all", "-a", help: "With --recursive, also list the documents that needed nothing."),
        .progress, .noProgress,
        CommandOption(
          "--allow-unrecorded",
          help:
            "Also repair a file the escrow never recorded for the key (a copy of yours made without the key), when its own bookmarks name the key and verify with it. This gives the key away: anyone who can read that file can then forge bookmarks for every document that carries the key."
        ),
        .json(),
      ]
    case .adopt:
      [
        CommandOption(
          "--yes", "-y",
          help:
            "Adopt without asking, as if you had said yes at the terminal: only after checking what the bookmarks point at."
        ),
        .json(),
      ]
    case .relink: [.json()]
    case .save:
      [
        CommandOption(
          "--from", value: "FILE|-", valueKind: .file,
          help:
            "Read the new contents from FILE instead of standard input. --from - reads standard input even when it is a terminal (type the contents, end with Ctrl-D); without it a terminal is refused, since nothing was piped in."
        ),
        CommandOption(
          "--allow-empty",
          help:
            "Save empty contents. Without it empty input is refused: an empty pipe or an early Ctrl-D never empties a document."
        ),
        CommandOption(
          "--split-hard-links",
          help:
            "Save even when the document has other hard links (they keep the old version). Without it such a save is refused."
        ),
        CommandOption(
          "--allow-owner-change",
          help:
            "Save even when the new version cannot keep the document's owner or group (another user's document in a folder you may write): the document becomes yours, and its owner loses the owner's permissions and the right to change its mode. Without it such a save is refused before anything is written."
        ),
        CommandOption(
          "--allow-read-only",
          help:
            "Save even when the document's permissions mark it read-only (no one may write it, or you may not): the new version keeps its mode. Without it such a save is refused before anything is written, as editors refuse it."
        ),
        CommandOption(
          "--in-place",
          help:
            "For a single file exported through the Documents portal (Flatpak), which refuses attributes: write the new contents over the document itself, keeping its key. Not crash-safe. Without it such a save is refused before anything is written."
        ),
        .json(),
      ]
    case .probe:
      [
        CommandOption(
          "--in", value: "DIR", valueKind: .folder,
          help: "Make the scratch folder in DIR (default: the current folder)."),
        CommandOption("--strict", help: "Files left beside the document count as a problem (exit 2)."),
        CommandOption("--through-link", help: "Give the program a symbolic link to the document."),
        CommandOption(
          "--with-hard-link",
          help:
            "Give the document a second name, to see whether the save splits hard links. Some programs (Vim, GLib) save a hard-linked file in place and replace an ordinary one: the report says so."
        ),
        CommandOption("--without-hard-link", help: "Give the document no second name (the default)."),
        .json(),
      ]
    case .store:
      [
        .json(),
        CommandOption("--key", value: "KEY", help: "With add: the record's key (a string)."),
        CommandOption(
          "--path-only",
          help: "With add: add the path without bookmarking it yet; it gets its bookmark when first reached."),
        CommandOption("--pin", help: "With add: pin the record."),
        CommandOption(
          "--create",
          help: "With add: make the store when there is none at STORE (else a missing store is an error)."),
      ]
    case .watch:
      [
        CommandOption(
          "--repair",
          help:
            "Put back the key a save dropped, from the escrow, under repair's rules: only on a document of yours that the escrow recorded for that key. A pasted bookmark or a copy made without the key never gets one."
        ),
        .json("One JSON object per line (see docbm(1))."),
      ]
    case .escrow:
      [
        .json(),
        CommandOption(
          "--force",
          help: "With export: replace FILE when it exists (a regular file; never a link or a device)."),
      ]
    case .demo, .completions, .help: []
    }
  }

  /// The operands, as the usage line shows them after the options.
  var operandsUsage: String {
    switch self {
    case .bookmark: "DOCUMENT TARGET..."
    case .resolve: "DOCUMENT BOOKMARK"
    case .decode: "BOOKMARK"
    case .inspect: "DOCUMENT"
    case .check, .repair: "PATH..."
    case .save, .adopt: "DOCUMENT"
    case .relink: "DOCUMENT FROM TO"
    case .probe: "[--] COMMAND [ARG...]"
    case .store: "STORE [PATH|KEY...]"
    case .watch: "FOLDER..."
    case .escrow: "list|export|import|forget [FILE|PATH]"
    case .demo: ""
    case .completions: "bash|zsh"
    case .help: "[SUBCOMMAND]"
    }
  }

  /// The usage line, without the leading `docbm`: the name, the options, the operands.
  var usage: String {
    let action = self == .store ? [StoreSettings.Action.allCases.map(\.rawValue).joined(separator: "|")] : []
    return ([rawValue] + action + options.map(\.usage) + [operandsUsage]).filter { !$0.isEmpty }.joined(
      separator: " ")
  }

  /// The help page's OPTIONS section: one line per option (the help fits it to the
  /// terminal), every description starting in one column.
  var optionsHelp: String {
    let all = options + [CommandOption.help]
    let column = min(all.map(\.label.count).max() ?? 0, CommandName.widestLabel) + 2
    let lines = all.map { option in
      option.label.count > CommandName.widestLabel
        ? "  \(option.label)\n  \(String(repeating: " ", count: column))\(option.help)"
        : "  \(option.label.padded(to: column))\(option.help)"
    }
    return "OPTIONS:\n" + lines.joined(separator: "\n")
  }

  /// Labels wider than this put their description on the next line.
  private static let widestLabel = 20

  /// Every name of every option, `-h` and `--help` among them, for the completion scripts.
  var optionWords: String { (options + [CommandOption.help]).flatMap(\.names).joined(separator: " ") }

  /// Whether the subcommand declares the option named `name`.
  func declares(_ name: String) -> Bool { options.contains { $0.names.contains(name) } }

  /// Whether the subcommand takes `--json`.
  var takesJSON: Bool { declares("--json") }
}

extension CommandOption {
  /// `--json`, described as the subcommand prints it.
  static func json(_ help: String = "Print a JSON object (see docbm(1)).") -> CommandOption {
    CommandOption("--json", help: help)
  }

  /// `--progress`, for the tree walks.
  static let progress = CommandOption(
    "--progress",
    help: "Show progress on standard error even when it is not a terminal (one line per 500 documents).")

  /// `--no-progress`, for the tree walks.
  static let noProgress = CommandOption(
    "--no-progress", help: "Never show progress (by default: when standard error is a terminal).")
}
