import DocbmSystem
import FoundationEssentials

/// What opening the escrow imported from docbm 0.1.0's escrow, which kept one JSON file per
/// key (`<fingerprint>.json`) and a catalog (`.catalog`) in the same folder.
///
/// The first open by this version finds those files, imports every key and document record
/// in one transaction, checks each imported key against its fingerprint, and then moves the
/// old files into ``keptIn`` (renamed, never deleted). A file found again later (a 0.1.0
/// docbm still running) is imported and moved the same way. Imported records keep their
/// path and identity; they have no birth time nor mode, which 0.1.0 did not record
/// (docs/security.md says what that changes).
public struct EscrowMigration: Hashable, Sendable {
  /// How many keys were imported (keys the database already had are not counted).
  public let keys: Int
  /// How many document records were imported.
  public let documents: Int
  /// The entry files that could not be imported (damaged, or someone else's); they are
  /// kept aside with the rest.
  public let problems: [EscrowProblem]
  /// The folder the old files were moved into.
  public let keptIn: FilePath

  /// One line for people: what was imported and where the old files are.
  public var summary: String {
    let skipped = problems.isEmpty ? "" : "; \(problems.count) could not be read and were not imported"
    return
      "the escrow was upgraded to one database: \(keys) \(keys == 1 ? "key" : "keys") and \(documents) document \(documents == 1 ? "record" : "records") imported from docbm 0.1.0's files\(skipped); the old files are kept in \(keptIn)"
  }

  /// The folder, inside the escrow folder, that the old files are moved into.
  static let asideFolderName = "0.1.0-files"

  /// The names of 0.1.0's files in the escrow folder: entry files (`*.json`, not hidden),
  /// `.catalog` and `.lock`; empty when there is no entry file.
  static func legacyEntryNames(in folder: EscrowFolder) -> [[UInt8]] {
    // A folder that cannot be listed now is looked at again at the next use of the escrow.
    guard let entries = try? DirectoryStream.entries(of: folder.descriptor) else { return [] }
    let names = entries.map(\.name)
    guard names.contains(where: isEntryFileName) else { return [] }
    return names.filter { isEntryFileName($0) || $0 == Array(".catalog".utf8) || $0 == Array(".lock".utf8) }
      .sorted { $0.lexicographicallyPrecedes($1) }
  }

  /// Whether `name` is a 0.1.0 entry file's: `*.json`, not hidden.
  static func isEntryFileName(_ name: [UInt8]) -> Bool {
    name.count > 5 && name[0] != UInt8(ascii: ".") && name.suffix(5).elementsEqual(".json".utf8)
  }

  /// Imports the 0.1.0 files `names` of `folder` into `database`, then moves them aside.
  ///
  /// - Throws: ``DocbmError`` when the import cannot be written, or when a key read back
  ///   does not match its fingerprint (then nothing is imported and no file moves).
  static func run(_ names: [[UInt8]], from folder: EscrowFolder, into database: EscrowDatabase)
    throws(DocbmError)
    -> EscrowMigration
  {
    var problems: [EscrowProblem] = []
    var entries: [LegacyEntry] = []
    for name in names where isEntryFileName(name) {
      switch LegacyEntry.read(name, in: folder) {
      case .success(let entry?): entries.append(entry)
      case .success(nil): continue  // imported and moved aside by another process meanwhile
      case .failure(let problem): problems.append(problem)
      }
    }
    let imported: (keys: Int, documents: Int)
    do {
      imported = try database.importEntries(
        entries.map {
          EscrowDatabase.ImportedEntry(key: $0.key, created: $0.created, documents: $0.documents)
        },
        source: "docbm 0.1.0", from: folder.path)
    } catch {
      throw EscrowDatabase.error(error, path: database.path, doing: "importing 0.1.0's files into")
    }
    let aside = try moveAside(names, in: folder)
    return EscrowMigration(
      keys: imported.keys, documents: imported.documents, problems: problems, keptIn: aside)
  }

  /// Moves `names` into ``asideFolderName`` (made with mode 0700 when missing); a name
  /// already there gets `.1`, `.2`, … appended rather than replace it.
  private static func moveAside(_ names: [[UInt8]], in folder: EscrowFolder) throws(DocbmError) -> FilePath {
    let asidePath = folder.path.appending(asideFolderName)
    try mappingSystemErrors(.writeKey, path: asidePath) { () throws(SystemCallError) in
      do throws(SystemCallError) {
        try folder.descriptor.makeDirectory(FilePath(asideFolderName), permissions: 0o700)
      } catch  where error.errno == .fileExists {}
      let aside = try FileDescriptor.open(
        FilePath(asideFolderName), [.directory, .noFollow, .readOnly], relativeTo: folder.descriptor)
      defer { aside.close() }
      for name in names {
        let source = FilePath(uncheckedBytes: name)
        var target = source
        var suffix = 0
        while true {
          do throws(SystemCallError) {
            try folder.descriptor.renameWithoutReplacing(source, to: target, in: aside)
            break
          } catch  where error.errno == .fileExists {
            suffix += 1
            target = FilePath(uncheckedBytes: name + Array(".\(suffix)".utf8))
          } catch  where error.errno == .noSuchFile {
            break  // moved by another process meanwhile
          }
        }
      }
    }
    return asidePath
  }
}

/// One of docbm 0.1.0's escrow entry files, as it was written (docs/format.md §6.1).
struct LegacyEntry {
  let key: DocumentKey
  let created: Timestamp
  let documents: [EscrowEntry.Document]

  private struct File: Decodable {
    var format: String
    var version: Int
    var fingerprint: KeyFingerprint
    var key: String
    var created: Timestamp
    var documents: [Document]
  }

  private struct Document: Decodable {
    var path: FilePath
    var inode: UInt64
    var fileHandle: KernelFileHandle?
    var filesystemID: UInt64?
    var recorded: Timestamp
  }

  /// The most a 0.1.0 entry file held.
  static let maximumFileSize = 1 << 20

  /// The entry in the file `name` of the folder, checked as 0.1.0 checked it: format
  /// `docbm-escrow` version 1, a 32-byte key whose fingerprint is the recorded one and the
  /// file's name.
  /// `nil` when the file is gone.
  static func read(_ name: [UInt8], in folder: EscrowFolder) -> Result<LegacyEntry?, EscrowProblem> {
    let path = folder.path.appending(name)
    let bytes: [UInt8]
    switch folder.read(name, limit: maximumFileSize) {
    case .failure(let problem): return .failure(problem)
    case .success(nil): return .success(nil)
    case .success(let read?): bytes = read
    }
    // Why it does not parse is JSONDecoder's wording: the problem says what matters.
    guard let file = try? JSONDecoder().decode(File.self, from: Data(bytes)) else {
      return .failure(EscrowProblem(file: path, reason: "not a docbm escrow entry (malformed JSON)"))
    }
    guard file.format == "docbm-escrow", file.version == 1 else {
      return .failure(
        EscrowProblem(
          file: path, reason: "not a 0.1.0 escrow entry (format \(file.format) version \(file.version))"))
    }
    guard let keyBytes = Base64URL.decode(Array(file.key.utf8)), let key = DocumentKey(bytes: keyBytes),
      key.fingerprint == file.fingerprint, Array((file.fingerprint.description + ".json").utf8) == name
    else {
      return .failure(
        EscrowProblem(
          file: path, reason: "its key does not match its fingerprint or its name (damaged entry)"))
    }
    let documents = file.documents.map {
      EscrowEntry.Document(
        path: $0.path, inode: $0.inode, fileHandle: $0.fileHandle, filesystemID: $0.filesystemID,
        origin: .imported,
        recorded: $0.recorded)
    }
    return .success(LegacyEntry(key: key, created: file.created, documents: documents))
  }
}
