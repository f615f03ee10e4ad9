import DocbmSystem
import DocumentBookmarkStore
import DocumentBookmarks
import FoundationEssentials

/// The `docbm` command: parses a command line and runs it. The executable is a few lines
/// over ``run(arguments:console:)``, so every command can also run in-process.
public enum DocbmCommandLine {
  /// The version `docbm --version` prints.
  public static let version = DocbmRelease.version

  /// Exit statuses.
  public enum ExitStatus {
    public static let success: Int32 = 0
    /// The command ran but failed (the bookmark did not resolve, the document has no key…).
    public static let failure: Int32 = 1
    /// A check found a problem: `check` found a document with one, `repair` refused one,
    /// `probe` saw a save lose something.
    public static let problem: Int32 = 2
    /// `probe`: the program did not write the document, so nothing was tested.
    public static let notTested: Int32 = 3
    /// `resolve`: the bookmark is good, but the evidence cannot tell which of several
    /// files is its target (stale `ambiguous`); the candidates are listed, none is chosen.
    public static let ambiguous: Int32 = 4
    /// The command line was wrong (`EX_USAGE`).
    public static let usage: Int32 = 64

    /// Every status above, as docs/cli.md and the man page list them (besides 128 + N,
    /// `probe` stopped by signal N).
    package static let all: [Int32] = [success, failure, problem, notTested, ambiguous, usage]
  }

  /// Runs the command line `arguments` (without the program name), given as raw bytes so
  /// that paths which are not UTF-8 arrive unchanged; returns the exit status.
  public static func run(arguments: [[UInt8]], console: Console = .standard) -> Int32 {
    var console = console
    console.paths = DisplayPaths(workingFolder: .currentDirectory)
    let command: ParsedCommand
    do {
      command = try ParsedCommand.parse(arguments)
    } catch {
      console.printError("Error: \(error.message)")
      let usage = error.command.map { "docbm \($0.usage)" } ?? "docbm <subcommand>"
      console.printError("Usage: \(usage)")
      let helpHint = error.command.map { "docbm \($0.rawValue) --help" } ?? "docbm --help"
      console.printError("  See '\(helpHint)' for more information.")
      return ExitStatus.usage
    }
    defer { console.flush() }
    do {
      return try execute(command, console: console)
    } catch {
      // A command asked for JSON says why it failed in JSON too, on its output, so that a
      // program reading it gets the code; the person at the terminal reads standard error.
      if command.printsJSON, let report = ErrorReport(error) {
        let failure = FailureReport(error: report)
        console.print(command.printsJSONLines ? JSONReport.renderLine(failure) : JSONReport.render(failure))
      }
      console.printError("Error: \(commandLineText(error))")
      if let hint = hint(for: error, command: command) { console.printError("  \(hint)") }
      return ExitStatus.failure
    }
  }

  /// Imports a 0.1.0 escrow into the database when the user's escrow folder holds one, and
  /// says so (once: the old files are moved aside). A failure is a warning: the command's
  /// own use of the escrow reports it again.
  static func announceEscrowUpgrade(_ console: Console) {
    do {
      guard let migration = try KeyEscrow.default.upgrade() else { return }
      announce(migration, console)
    } catch {
      console.printError("warning: the escrow could not be upgraded: \(commandLineText(error))")
    }
  }

  /// Says what an import of a 0.1.0 escrow did.
  static func announce(_ migration: EscrowMigration, _ console: Console) {
    console.printError("docbm: \(migration.summary)")
    for problem in migration.problems { console.printError("warning: not imported: \(problem)") }
  }

  /// What a person at a terminal can do next about `error`, as a command.
  static func hint(for error: any Error, command: ParsedCommand) -> String? {
    if let failure = error as? StoreFailure, failure.code == .storeKeyLost, let store = failure.path {
      return
        "'docbm store reanchor \(shellQuoted(store.description))' bookmarks each record again at its last known path under a new key."
    }
    guard let error = error as? DocbmError else { return nil }
    let document = error.path.map { shellQuoted($0.description) } ?? "DOCUMENT"
    switch error.code {
    case .keyMissing:
      return "A save may have dropped the key: 'docbm repair \(document)' puts an escrowed key back."
    case .hardLinked:
      return
        "To save anyway (the other names keep the old version): docbm save --split-hard-links \(document)"
    case .ownerChanged:
      return "To save anyway (the document becomes yours): docbm save --allow-owner-change \(document)"
    case .readOnlyDocument:
      if case .save = command {
        return "To save anyway (it keeps its mode): docbm save --allow-read-only \(document)"
      }
      return "To change it anyway, its owner makes it writable first: chmod u+w \(document)"
    case .portalRefusesAttributes where error.step != nil:
      return "To save in place, keeping the key (not crash-safe): docbm save --in-place \(document)"
    default:
      return nil
    }
  }

  /// `text` quoted for a POSIX shell when it needs to be.
  static func shellQuoted(_ text: String) -> String {
    let plain = text.allSatisfy { $0.isLetter || $0.isNumber || "/._-+,:@%=".contains($0) }
    if plain && !text.isEmpty { return text }
    return "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
  }

  /// The process's own arguments as bytes, without the program name.
  public static var processArguments: [[UInt8]] { ProcessEnvironment.arguments }

  /// Runs the command the process's arguments name and ends the process with its exit
  /// status: the `docbm` executable's whole body.
  public static func main() -> Never {
    // A call reads a few of the escrow's pages: memory is taken for those it reads.
    SQLiteDatabase.allocatePagesOnDemand()
    ProcessEnvironment.exit(run(arguments: processArguments))
  }

  private static func execute(_ command: ParsedCommand, console: Console) throws -> Int32 {
    switch command {
    case .bookmark, .resolve, .check, .repair, .adopt, .relink, .save, .store, .watch, .escrow:
      announceEscrowUpgrade(console)
    // inspect opens the escrow only when its record can change the verdict, and says what
    // that opening imported.
    case .inspect, .decode, .probe, .demo, .completions, .help, .version:
      break
    }
    switch command {
    case .help(let topic):
      console.printFitted(HelpText.render(topic))
      return ExitStatus.success
    case .version:
      console.print(version)
      return ExitStatus.success
    case .bookmark(let document, let targets, let json):
      var paths: [FilePath] = []
      for target in targets { paths.append(try path(target)) }
      return try BookmarkCommand(document: path(document), targets: paths, json: json).run(console)
    case .resolve(let document, let bookmark, let search, let choose, let json):
      return try ResolveCommand(
        document: path(document), bookmark: bookmark, search: search, choice: choose.map(path), json: json
      ).run(console)
    case .decode(let bookmark, let json):
      return try DecodeCommand(bookmark: bookmark, json: json).run(console)
    case .inspect(let document, let json):
      return try InspectCommand(document: path(document), json: json).run(console)
    case .check(let settings):
      return try CheckCommand(
        paths: settings.paths.map(path), recursive: settings.recursive, json: settings.json,
        listAll: settings.listAll, progress: settings.progress, search: settings.search,
        explain: settings.explain
      ).run(console)
    case .repair(let settings):
      return try RepairCommand(
        documents: settings.documents.map(path), allowUnrecorded: settings.allowUnrecorded,
        recursive: settings.recursive, json: settings.json, listAll: settings.listAll,
        progress: settings.progress
      ).run(console)
    case .relink(let document, let from, let to, let json):
      return try RelinkCommand(document: path(document), from: path(from), to: path(to), json: json).run(
        console)
    case .adopt(let document, let yes, let json):
      return try AdoptCommand(document: path(document), yes: yes, json: json).run(console)
    case .save(let settings):
      let standardInput = settings.from == nil || settings.from == [UInt8(ascii: "-")]
      return try SaveCommand(
        document: path(settings.document), source: standardInput ? nil : try settings.from.map(path),
        inputNamed: settings.from != nil, allowEmpty: settings.allowEmpty,
        splitHardLinks: settings.splitHardLinks,
        allowOwnerChange: settings.allowOwnerChange, allowReadOnly: settings.allowReadOnly,
        inPlace: settings.inPlace, json: settings.json
      ).run(console)
    case .probe(let settings):
      return try ProbeCommand(settings: settings).run(console)
    case .store(let settings) where settings.action == .follow:
      return try StoreFollowCommand(store: path(settings.store), json: settings.json).run(console)
    case .store(let settings):
      return try StoreCommand(settings: settings, store: path(settings.store)).run(console)
    case .escrow(let settings):
      return try EscrowCommand(
        action: settings.action, file: try settings.file.map(path), json: settings.json, force: settings.force
      ).run(console)
    case .watch(let settings):
      return try WatchCommand(
        folders: settings.folders.map(path), repair: settings.repair, json: settings.json
      )
      .run(console)
    case .demo:
      return try DemoCommand().run(console)
    case .completions(let shell):
      console.print(shell == "bash" ? CompletionScript.bash : CompletionScript.zsh)
      return ExitStatus.success
    }
  }

  private static func path(_ bytes: [UInt8]) throws -> FilePath {
    guard let path = FilePath(bytes: bytes) else {
      throw DocbmError(.notFound, message: "a path cannot contain a NUL byte")
    }
    return path
  }
}
