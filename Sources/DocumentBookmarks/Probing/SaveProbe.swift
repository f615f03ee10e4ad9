import DocbmSystem
public import FoundationEssentials

/// Runs a save against a ``ScratchDocument`` and reports what it broke.
///
/// The same comparison serves `docbm probe` (an outside program's save) and the testing
/// product's lint (an app's own save function).
public enum SaveProbe {
  /// Runs `save` on a new scratch document and reports what it did.
  ///
  /// The scratch document is made in `base`, by default the current folder (see
  /// ``ScratchDocument/make(options:in:)`` for why not `/tmp`), and removed afterwards.
  /// `save` gets the path to save to (the document, or a symbolic link to it). When it
  /// throws ``DocbmError`` `hardLinked` (replaceDocument refusing to split links) and the
  /// document is intact, that is a safe refusal: the check is repeated on a scratch document
  /// without a second link, and a note says so.
  ///
  /// - Throws: ``DocbmError`` when the scratch document cannot be made.
  public static func lint(
    options: ScratchDocument.Options = ScratchDocument.Options(), in base: FilePath? = nil,
    _ save: (URL) throws -> Void
  ) throws(DocbmError) -> SaveProbeReport {
    try lintByPath(options: options, in: base) { try save(try $0.exactURL()) }
  }

  /// `lint(options:in:_:)` with a save handed the scratch document's
  /// path as bytes, exactly (a folder whose name is not UTF-8 included): for the C library.
  package static func lintByPath(
    options: ScratchDocument.Options = ScratchDocument.Options(), in base: FilePath? = nil,
    _ save: (FilePath) throws -> Void
  ) throws(DocbmError) -> SaveProbeReport {
    let scratch = try ScratchDocument.make(options: options, in: base)
    defer { scratch.remove() }
    var failure: (any Error)?
    do { try save(scratch.savePath) } catch { failure = error }
    let (report, retry) = assess(scratch, failure: failure, options: options)
    guard let retry else { return report }
    return noting(refusal: try lintByPath(options: retry, in: base, save))
  }

  /// Runs `save` on a new scratch document and reports what it did; see `lint(options:in:_:)`.
  public static func lint(
    options: ScratchDocument.Options = ScratchDocument.Options(), in base: FilePath? = nil,
    _ save: (URL) async throws -> Void
  ) async throws(DocbmError) -> SaveProbeReport {
    let scratch = try ScratchDocument.make(options: options, in: base)
    defer { scratch.remove() }
    var failure: (any Error)?
    do { try await save(try scratch.savePath.exactURL()) } catch { failure = error }
    let (report, retry) = assess(scratch, failure: failure, options: options)
    guard let retry else { return report }
    return noting(refusal: try await lint(options: retry, in: base, save))
  }

  /// The report, and the options to check again with when the save safely refused a
  /// hard-linked document.
  private static func assess(
    _ scratch: ScratchDocument, failure: (any Error)?, options: ScratchDocument.Options
  ) -> (SaveProbeReport, retry: ScratchDocument.Options?) {
    let report = examine(scratch, failure: failure.map { String(describing: $0) })
    guard let error = failure as? DocbmError, error.code == .hardLinked, options.hardLink,
      report.findings.allSatisfy({ $0.kind == .saveFailed })
    else { return (report, nil) }
    var withoutLink = options
    withoutLink.hardLink = false
    return (report, withoutLink)
  }

  private static func noting(refusal report: SaveProbeReport) -> SaveProbeReport {
    var report = report
    report.notes.insert(
      "the save refused the hard-linked document and left it intact; checked again without a second name",
      at: 0)
    return report
  }

  /// Compares the scratch document after a save with before. `failure` describes how the
  /// save failed, when it did.
  public static func examine(_ scratch: ScratchDocument, failure: String?) -> SaveProbeReport {
    var report = SaveProbeReport(
      location: scratch.location, isInTemporaryFolder: scratch.isInTemporaryFolder)
    if let failure {
      report.findings.append(SaveFinding(.saveFailed, "the save failed: \(failure)"))
    }
    let before = scratch.before

    // A link gone (or unreadable) leaves the document unreachable: told just below.
    if let link = scratch.symbolicLink,
      let status = try? FileStatus.of(link, followSymlinks: false), status.kind != .symbolicLink
    {
      report.findings.append(
        SaveFinding(
          .symbolicLinkReplaced,
          "the symbolic link \(link) was replaced by a regular file; the document it led to kept the old contents"
        ))
    }
    let after: FileStatus
    do {
      after = try FileStatus.of(scratch.savePath, followSymlinks: true)
    } catch {
      let what =
        error.errno == .noSuchFile
        ? "nothing is at \(scratch.savePath) after the save"
        : "\(scratch.savePath) cannot be looked at after the save (\(error))"
      report.findings.append(SaveFinding(.documentMissing, what))
      report.findings.append(contentsOf: leftovers(scratch))
      return report
    }
    guard after.kind == .regular else {
      // A FIFO, socket or device where the document was: opening it could block for ever
      // (a FIFO without a writer), and there is no document to look at.
      report.findings.append(
        SaveFinding(
          .documentNotAFile,
          "a \(after.kindDescription) is at \(scratch.savePath) after the save, not the document"))
      report.findings.append(contentsOf: leftovers(scratch))
      return report
    }
    let contents: [UInt8]?
    do {
      contents = try readRegularFile(scratch.savePath)
    } catch {
      report.findings.append(
        SaveFinding(.documentMissing, "\(scratch.savePath) cannot be read after the save (\(error))"))
      report.findings.append(contentsOf: leftovers(scratch))
      return report
    }
    report.contentsChanged = contents != scratch.contents
    // A save that did not touch the document (a program that quit without saving) tested
    // nothing; it must not pass for a safe one. Any write changes the modification or the
    // change time (setting an attribute or a mode changes the latter).
    report.wroteDocument =
      report.contentsChanged || after.inode != before.status.inode || after.device != before.status.device
      || after.modificationTime != before.status.modificationTime
      || after.changeTime != before.status.changeTime
    if scratch.hardLink != nil {
      report.notes.append(SaveProbeReport.hardLinkNote)
    }
    if !report.wroteDocument {
      report.notes.append("the document was not written (same contents, inode and times)")
    } else {
      report.notes.append(report.contentsChanged ? "the contents changed" : "the contents did not change")
      report.notes.append(
        after.inode == before.status.inode
          ? "the document kept its inode (written in place)" : "the document has a new inode")
    }

    let anchored = BookmarkService(escrow: nil).documents(anchoredOn: scratch.savePath)
    switch Result(catching: { () throws(DocbmError) in try anchored.keyFingerprint() }) {
    case .success(nil):
      report.findings.append(
        SaveFinding(
          .keyLost, "the document lost its key (\(KeyAttribute.name), fingerprint \(before.fingerprint))"))
    case .success(let fingerprint?) where fingerprint != before.fingerprint:
      report.findings.append(
        SaveFinding(.keyChanged, "the document's key changed from \(before.fingerprint) to \(fingerprint)"))
    case .failure(let error):
      report.findings.append(SaveFinding(.keyLost, "the document's key cannot be read: \(error)"))
    default: break
    }

    var lost: [String] = []
    var unreadable: [String] = []
    for (name, value) in before.attributes.sorted(by: { $0.key < $1.key }) {
      do {
        let now = try ExtendedAttributes.value(name, of: .path(scratch.savePath, followSymlinks: true))
        if now != value { lost.append(name) }
      } catch {
        unreadable.append("\(name) (\(error.errno.name))")
      }
    }
    if !lost.isEmpty || !unreadable.isEmpty {
      var what: [String] = []
      if !lost.isEmpty { what.append("other extended attributes were lost: \(lost.joined(separator: ", "))") }
      if !unreadable.isEmpty {
        what.append(
          "other extended attributes cannot be read after the save: \(unreadable.joined(separator: ", "))")
      }
      report.findings.append(SaveFinding(.attributesLost, what.joined(separator: "; ")))
    }
    if after.permissions != before.status.permissions {
      report.findings.append(
        SaveFinding(
          .modeChanged,
          "the mode changed from \(octal(before.status.permissions)) to \(octal(after.permissions))"))
    }
    if after.owner != before.status.owner || after.group != before.status.group {
      report.findings.append(
        SaveFinding(
          .ownerChanged,
          "the owner changed from \(before.status.owner):\(before.status.group) to \(after.owner):\(after.group)"
        ))
    }
    // A second name gone is no split of the document's names into two files.
    if let second = scratch.hardLink, let secondStatus = try? FileStatus.of(second, followSymlinks: false),
      secondStatus.inode != after.inode || secondStatus.device != after.device
    {
      report.findings.append(
        SaveFinding(
          .hardLinkSplit, "\(second) still holds the old version: the save split the document's hard links"))
    }
    report.findings.append(contentsOf: leftovers(scratch))
    do {
      _ = try anchored.resolve(scratch.bookmark)
    } catch {
      report.findings.append(
        SaveFinding(
          .bookmarkNoLongerResolves,
          "the bookmark stored in the document no longer resolves: \(error.code.rawValue)"))
    }
    return report
  }

  /// The files the save left in the scratch folder that were not there before.
  private static func leftovers(_ scratch: ScratchDocument) -> [SaveFinding] {
    let entries: [DirectoryStream.Entry]
    do {
      let fd = try FileDescriptor.open(scratch.folder, [.directory])
      defer { fd.close() }
      entries = try DirectoryStream.entries(of: fd)
    } catch {
      return [
        SaveFinding(
          .temporaryFilesLeft,
          "the folder \(scratch.folder) cannot be listed after the save (\(error)): files left in it cannot be told"
        )
      ]
    }
    let left = entries.map(\.name).filter { !scratch.before.entries.contains($0) }.map { FilePath.escape($0) }
      .sorted()
    guard !left.isEmpty else { return [] }
    return [SaveFinding(.temporaryFilesLeft, "the save left files behind: \(left.joined(separator: ", "))")]
  }

  /// The bytes of the regular file at `path`, opened without blocking (a FIFO put there
  /// since it was looked at is refused, not waited on).
  private static func readRegularFile(_ path: FilePath) throws(SystemCallError) -> [UInt8]? {
    let fd = try FileDescriptor.open(path, [.readOnly, .nonBlocking])
    return try fd.closeAfter { fd throws(SystemCallError) in
      guard try FileStatus.of(fd).kind == .regular else { return nil }
      return try fd.readWhole()
    }
  }

  private static func octal(_ mode: UInt32) -> String {
    "0" + String(mode, radix: 8)
  }
}
