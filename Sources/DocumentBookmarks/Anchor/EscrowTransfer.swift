import DocbmSystem

/// What an export or an import of the escrow moved (``KeyEscrow/exportKeys(to:replacing:)``,
/// ``KeyEscrow/importKeys(from:)``).
public struct EscrowTransfer: Hashable, Sendable {
  /// The export file.
  public let file: FilePath
  /// The keys written to the file (export), or added to this escrow (import).
  public let keys: Int
  /// The document records written to the file, or added to this escrow.
  public let documents: Int
  /// For an import, the keys of the file that this escrow held already (the same key
  /// under the same fingerprint): their new records were added, the keys left as they are.
  public let keysAlreadyHeld: Int
  /// The file's permission bits as docbm found them through its own descriptor: for an
  /// export, those of the file it wrote (0600); for an import, those of the file it read.
  public let permissions: UInt32
}

extension KeyEscrow {
  /// The largest export ``importKeys(from:)`` reads: far above an escrow of 100,000 keys.
  public static let maximumExportSize = 256 << 20

  /// Writes this escrow's keys and document records to `file`, for another machine of the
  /// user's or a backup: a compacted copy of the escrow's database (docs/format.md §6.2),
  /// made in memory and written only through a descriptor of a new file of mode 0600,
  /// flushed, and then given its name, so that no half-written export and no copy readable
  /// by others is ever at `file`, and a killed export leaves nothing behind. When someone
  /// else replaces or moves the file at `file` before the export returns (in a folder
  /// others can write), the written copy is erased and the export fails
  /// (docs/security.md, "Exports").
  ///
  /// The file holds the keys themselves: whoever can read it can forge bookmarks for every
  /// document they anchor. Keep it where only you can read it, and delete it once imported.
  ///
  /// - Parameters:
  ///   - file: where the export goes: a name that does not exist yet, or, with `replacing`,
  ///     a regular file.
  ///   - replacing: whether an existing regular file at `file` is replaced; without it, an
  ///     existing `file` is refused.
  /// - Throws: ``DocbmError`` `notFound` when this escrow has no database yet (no key was
  ///   escrowed); `documentExists` when `file` exists and `replacing` is false;
  ///   `unsupportedFileType` when `file` is not a regular file (a terminal, a FIFO, a
  ///   device, a folder or a symbolic link: an export is never written through one); the
  ///   escrow's own errors (`escrowUntrusted`, `escrowDamaged`); `escrowUntrusted` also
  ///   when someone else replaced or moved the export while it was put in place;
  ///   `noSpace`, `ioError`, `permissionDenied`, `readOnlyFilesystem` when the file cannot
  ///   be written (then nothing is left behind).
  public func exportKeys(to file: FilePath, replacing: Bool = false) throws(DocbmError) -> EscrowTransfer {
    let existing: FileStatus?
    do {
      existing = try FileStatus.of(file, followSymlinks: false)
    } catch  where error.errno == .noSuchFile {
      existing = nil
    } catch {
      throw DocbmError(error, operation: .exportEscrow, path: file)
    }
    if let existing {
      guard existing.kind == .regular else {
        throw DocbmError(
          .unsupportedFileType, path: file,
          message:
            "\(file) is a \(existing.kindDescription), not a regular file: an export holds keys and is written only as a file of its own"
        )
      }
      guard replacing else {
        throw DocbmError(
          .documentExists, path: file,
          message:
            "\(file) exists and was left as it is: give another name, or ask for it to be replaced (docbm escrow export --force)"
        )
      }
    }
    guard let database = try open(create: false) else {
      throw DocbmError(
        .notFound, path: databasePath,
        message: "there is no escrow to export at \(folder): no key has been escrowed on this account yet")
    }
    let image: [UInt8]
    do {
      image = try database.connection.compactedImage()
    } catch {
      throw EscrowDatabase.error(error, path: database.path, doing: "exporting")
    }
    // The counts of what is written, read from the image itself.
    let counts = try EscrowDatabase.openExport(image, path: database.path).counts()
    let written = try EscrowExportFile.write(image, to: file, replacing: replacing)
    return EscrowTransfer(
      file: file, keys: counts.keys, documents: counts.documents, keysAlreadyHeld: 0,
      permissions: written.permissions & 0o7777)
  }

  /// Adds the keys and document records of an export (``exportKeys(to:replacing:)``, made
  /// on this machine or another) to this escrow, in one transaction; the escrow is made
  /// when there is none.
  ///
  /// Nothing in the file is trusted that cannot be checked: it must be a regular file of
  /// the user's that nobody else can read or write (it holds keys), at most
  /// ``maximumExportSize`` bytes; it is read once, through one descriptor, and opened as a
  /// database in memory (nothing is swapped in between the checks and the reading); it must
  /// be docbm's escrow of this version, undamaged, and every key must have its fingerprint.
  /// A document at a recorded path that lost its key is then repaired by the usual rule
  /// (docs/security.md, "Which file is a key's document").
  ///
  /// - Throws: ``DocbmError`` `notFound` when `file` is missing; `escrowUntrusted` when it is
  ///   a symbolic link, another user's, or readable or writable by others;
  ///   `unsupportedFileType` when it is not a regular file; `escrowDamaged` when it is not an
  ///   export this docbm can read, is damaged, holds a key that does not match its
  ///   fingerprint, or names a key this escrow holds with other bytes (then nothing is
  ///   imported); the escrow's own errors when it cannot be written.
  public func importKeys(from file: FilePath) throws(DocbmError) -> EscrowTransfer {
    let (bytes, status) = try KeyEscrow.readExport(file)
    let export = try EscrowDatabase.openExport(bytes, path: file)
    let entries: [EscrowEntry]
    do {
      entries = try export.entries()
    } catch {
      throw DocbmError(
        .escrowDamaged, path: file,
        message: "\(file) cannot be imported: \(error.message); nothing was imported")
    }
    guard let database = try open(create: true) else {
      throw DocbmError(
        .systemFailure, path: databasePath, message: "the escrow at \(folder) could not be made")
    }
    let imported: (keys: Int, documents: Int)
    do {
      imported = try database.importEntries(
        entries.map {
          EscrowDatabase.ImportedEntry(
            key: $0.key, created: $0.created, documents: $0.documents.map { $0.transferred() })
        },
        source: "export", from: file.absolute)
    } catch  where error.isConstraint {
      throw DocbmError(
        .escrowDamaged, path: file,
        message: "\(file) cannot be imported: \(error.message); nothing was imported")
    } catch {
      throw EscrowDatabase.error(error, path: database.path, doing: "importing \(file) into")
    }
    return EscrowTransfer(
      file: file, keys: imported.keys, documents: imported.documents,
      keysAlreadyHeld: entries.count - imported.keys, permissions: status.permissions & 0o7777)
  }

  /// The bytes of the export at `file`, read through one descriptor after checking it, and
  /// its status as checked.
  private static func readExport(_ file: FilePath) throws(DocbmError) -> (bytes: [UInt8], status: FileStatus)
  {
    let fd: FileDescriptor
    do {
      fd = try FileDescriptor.open(file, [.readOnly, .noFollow, .nonBlocking])
    } catch  where error.errno == .tooManySymbolicLinks {
      throw DocbmError(
        .escrowUntrusted, path: file,
        message: "\(file) is a symbolic link; an export is read only from the file itself")
    } catch {
      throw DocbmError(error, operation: .importEscrow, path: file)
    }
    defer { fd.close() }
    let status: FileStatus
    do {
      status = try FileStatus.of(fd)
    } catch {
      throw DocbmError(error, operation: .importEscrow, path: file)
    }
    guard status.kind == .regular else {
      throw DocbmError(
        .unsupportedFileType, path: file,
        message: "\(file) is a \(status.kindDescription), not an export file")
    }
    guard status.owner == ProcessCredentials.effectiveUser else {
      throw DocbmError(
        .escrowUntrusted, path: file,
        message:
          "\(file) belongs to user \(status.owner), not to you: an export's keys are taken only from a file of your own"
      )
    }
    guard status.permissions & 0o077 == 0 else {
      throw DocbmError(
        .escrowUntrusted, path: file,
        message:
          "\(file) can be read or written by others (mode \(String(status.permissions & 0o7777, radix: 8))): its keys may be known to them, or be theirs. Export again from your own escrow (docbm escrow export, which writes mode 600) and import that file"
      )
    }
    guard status.size <= UInt64(maximumExportSize) else {
      throw DocbmError(
        .escrowDamaged, path: file,
        message: "\(file) is \(status.size) bytes, more than an export can be (\(maximumExportSize) bytes)")
    }
    do {
      return (try fd.readWhole(limit: maximumExportSize + 1), status)
    } catch {
      throw DocbmError(error, operation: .importEscrow, path: file)
    }
  }
}
