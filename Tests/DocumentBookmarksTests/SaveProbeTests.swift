import DocbmSystem
import DocbmTestSupport
import Foundation
import Testing

@testable import DocumentBookmarks

@Suite("What the save probe finds")
struct SaveProbeTests {
  private func kinds(
    _ options: ScratchDocument.Options = ScratchDocument.Options(), _ save: (URL) throws -> Void
  ) throws -> Set<SaveFinding.Kind> {
    let report = try SaveProbe.lint(options: options, save)
    print("probe | \(report.findings.map(\.kind.rawValue).sorted()) | \(report.notes)")
    return Set(report.findings.map(\.kind))
  }

  private let new = Data("{\"new\": true}\n".utf8)
  /// A scratch document with a second name, to see links split.
  private let linked = ScratchDocument.Options(hardLink: true)

  @Test("the scratch document is an ordinary one by default: one name, no note about links")
  func ordinaryByDefault() throws {
    let scratch = try ScratchDocument.make()
    defer { scratch.remove() }
    #expect(scratch.hardLink == nil)
    #expect(try FileStatus.of(scratch.document, followSymlinks: false).linkCount == 1)
    let report = try SaveProbe.lint(options: linked) { url in try new.write(to: url) }
    #expect(report.notes.contains(SaveProbeReport.hardLinkNote))
    let ordinary = try SaveProbe.lint { url in try new.write(to: url) }
    #expect(!ordinary.notes.contains(SaveProbeReport.hardLinkNote))
  }

  @Test("Data.write(.atomic): key, attributes, mode and links lost; through a link, the link replaced")
  func dataAtomic() throws {
    let found = try kinds(linked) { url in try new.write(to: url, options: .atomic) }
    #expect(found == [.keyLost, .attributesLost, .modeChanged, .hardLinkSplit, .bookmarkNoLongerResolves])
    let ordinary = try kinds { url in try new.write(to: url, options: .atomic) }
    #expect(ordinary == [.keyLost, .attributesLost, .modeChanged, .bookmarkNoLongerResolves])
    let viaLink = try kinds(ScratchDocument.Options(throughSymbolicLink: true)) { url in
      try new.write(to: url, options: .atomic)
    }
    #expect(viaLink.contains(.symbolicLinkReplaced))
    #expect(viaLink.contains(.keyLost))
  }

  @Test("String.write(atomically: true) is flagged like Data's atomic write")
  func stringAtomic() throws {
    let found = try kinds(linked) { url in try "{}".write(to: url, atomically: true, encoding: .utf8) }
    #expect(found.isSuperset(of: [.keyLost, .attributesLost, .modeChanged, .hardLinkSplit]))
  }

  @Test("FileManager.replaceItemAt: the document is missing")
  func replaceItemAt() throws {
    let found = try kinds { url in
      let replacement = url.deletingLastPathComponent().appendingPathComponent("replacement.json")
      try new.write(to: replacement)
      _ = try FileManager.default.replaceItemAt(url, withItemAt: replacement)
    }
    #expect(found.contains(.documentMissing))
    #expect(found.contains(.saveFailed))
  }

  @Test("remove, then move: key and attributes lost")
  func removeThenMove() throws {
    let found = try kinds(linked) { url in
      let replacement = url.deletingLastPathComponent().appendingPathComponent("replacement.json")
      try new.write(to: replacement)
      try FileManager.default.removeItem(at: url)
      try FileManager.default.moveItem(at: replacement, to: url)
    }
    #expect(found.isSuperset(of: [.keyLost, .attributesLost, .hardLinkSplit, .bookmarkNoLongerResolves]))
  }

  @Test("copy, then rename: FileManager.copyItem does not copy attributes on Linux")
  func copyThenRename() throws {
    let found = try kinds(linked) { url in
      let copy = url.deletingLastPathComponent().appendingPathComponent("copy.json")
      try FileManager.default.copyItem(at: url, to: copy)
      try new.write(to: copy)
      _ = try FileManager.default.moveItem(at: copy, to: url, replacing: true)
    }
    #expect(found.isSuperset(of: [.keyLost, .attributesLost, .hardLinkSplit]))
  }

  @Test("a save that leaves a backup behind, and one that fails, are flagged")
  func leftoversAndFailures() throws {
    let leaves = try kinds { url in
      try Data("old".utf8).write(to: URL(fileURLWithPath: url.path + "~"))
      try new.write(to: url)
    }
    #expect(leaves == [.temporaryFilesLeft])
    struct Broken: Error {}
    #expect(try kinds { _ in throw Broken() } == [.saveFailed])
  }

  @Test("replaceDocument and an in-place write pass, directly and through a symbolic link")
  func safeSaves() throws {
    for options in [linked, ScratchDocument.Options(hardLink: true, throughSymbolicLink: true)] {
      let report = try SaveProbe.lint(options: options) { url in
        try BookmarkService(escrow: nil).documents(anchoredOn: url).replaceDocument(with: new)
      }
      #expect(report.isSafe, "\(report.summary)")
      #expect(report.contentsChanged)
      #expect(report.notes.first?.contains("refused the hard-linked document") == true)
      #expect(try kinds(options) { url in try new.write(to: url) }.isEmpty)
    }
    let split = try kinds(linked) { url in
      try BookmarkService(escrow: nil).documents(anchoredOn: url).replaceDocument(
        with: new, options: ReplaceOptions(hardLinks: .split))
    }
    #expect(split == [.hardLinkSplit])
  }
}

extension FileManager {
  /// Renames `source` over `destination` (rename(2) replaces it).
  fileprivate func moveItem(at source: URL, to destination: URL, replacing: Bool) throws {
    guard rename(source.path, destination.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
  }
}
