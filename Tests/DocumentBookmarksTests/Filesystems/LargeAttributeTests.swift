import DocbmSystem
import DocbmTestSupport
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarks

/// Large attribute values and many attributes: what each filesystem accepts (measured by
/// setting them until it refuses), whether a save copies all of them, and what a copy onto
/// a filesystem that cannot hold them does.
@Suite("Large and many extended attributes")
struct LargeAttributeTests {
  static let filesystems: [LabFilesystem] = LabFilesystem.allCases

  @Test("saves copy every attribute a filesystem holds; a copy that cannot is typed", .timeLimit(.minutes(2)))
  func attributes() async throws {
    guard
      let rows = try await FilesystemLab.inNamespace(
        "the attribute test",
        { lab in
          try Self.measure(in: lab)
        })
    else { return }
    for (filesystem, operation, result) in rows {
      FilesystemTable.record("attributes", filesystem, operation, result)
    }
    for filesystem in Self.filesystems.map(\.rawValue) {
      let measured = Dictionary(
        rows.filter { $0.0 == filesystem }.map { ($0.1, $0.2) }, uniquingKeysWith: { first, _ in first })
      guard !measured.isEmpty else { continue }
      #expect(measured["saved with its attributes"]?.hasPrefix("all copied") == true, "\(filesystem)")
      #expect(measured["Save As onto ext4"] != nil, "\(filesystem)")
      // A value larger than ext4 holds must fail typed, leaving the original as it was.
      if let largest = measured["largest value accepted"].flatMap({ Int($0.split(separator: " ")[0]) }),
        largest > 4096
      {
        #expect(
          measured["Save As onto ext4"] == "error: attributeCopyFailed; original intact, nothing left",
          "\(filesystem)")
      }
    }
    #expect(rows.contains { $0.0 == "xfs" && $0.1 == "largest value accepted" && $0.2 == "65536 bytes" })
  }

  static let sizes = [65536, 32768, 16384, 8192, 4096, 2048, 1024]

  static func measure(in lab: FilesystemLab) throws -> [(String, String, String)] {
    var rows: [(String, String, String)] = []
    let ext4 = try lab.mount(.ext4, name: "ext4-destination")
    for kind in filesystems {
      let m: FilePath
      do {
        m = try lab.mount(kind, name: "\(kind.rawValue)-attributes")
      } catch let skip as LabSkip {
        print("skipped \(kind.rawValue) in the attribute test: \(skip.description)")
        continue
      }
      func row(_ operation: String, _ result: String) { rows.append((kind.rawValue, operation, result)) }
      let documentPath = try lab.scratch.file(bytes: FilePath(m.description + "/doc"), "document")
      let document = BookmarkService(escrow: nil).documents(anchoredOn: documentPath)
      _ = try document.makeBookmark(to: try lab.scratch.file(bytes: FilePath(m.description + "/target"), "t"))
      let subject = ExtendedAttributes.Subject.path(documentPath, followSymlinks: false)

      // The largest single value it accepts, then as many small attributes as fit.
      var expected: [String: [UInt8]] = [:]
      let largest = sizes.first { size in
        let value = (0..<size).map { _ in UInt8.random(in: 0...255) }
        guard (try? ExtendedAttributes.set("user.big", to: value, on: subject)) != nil else { return false }
        expected["user.big"] = value
        return true
      }
      row("largest value accepted", largest.map { "\($0) bytes" } ?? "none of \(sizes.last!) bytes or more")
      var count = 0
      while count < 200 {
        let name = "user.n\(count)"
        let value = (0..<64).map { _ in UInt8.random(in: 0...255) }
        guard (try? ExtendedAttributes.set(name, to: value, on: subject)) != nil else { break }
        expected[name] = value
        count += 1
      }
      row("attributes of 64 bytes accepted besides", count == 200 ? "200 (all tried)" : "\(count)")

      let saved = Result { () throws(DocbmError) in try document.replaceDocument(with: Data("saved".utf8)) }
      if case .failure(let error) = saved {
        row("saved with its attributes", "error: \(error.code.rawValue)")
      } else {
        let missing = expected.filter {
          (try? ExtendedAttributes.value($0.key, of: subject, sizeHint: 70000)) != $0.value
        }
        let keyKept = (try? document.keyFingerprint()) != nil
        row(
          "saved with its attributes",
          missing.isEmpty && keyKept
            ? "all copied (\(expected.count) and the key)"
            : "lost: \(missing.keys.sorted().joined(separator: ", "))")
      }

      // Save As onto ext4, whose attribute block holds about 4 KiB in all.
      let copyPath = FilePath(ext4.description + "/\(kind.rawValue)-copy")
      let copied = Result { () throws(DocbmError) in
        try document.saveCopy(to: copyPath, data: Data("copy".utf8))
      }
      switch copied {
      case .success:
        let missing = expected.filter {
          (try? ExtendedAttributes.value($0.key, of: .path(copyPath, followSymlinks: false), sizeHint: 70000))
            != $0.value
        }
        row("Save As onto ext4", missing.isEmpty ? "all copied" : "copied, lost: \(missing.count)")
      case .failure(let error):
        let intact =
          (try? String(contentsOfFile: documentPath.description, encoding: .utf8)) == "saved"
          && expected.allSatisfy {
            (try? ExtendedAttributes.value($0.key, of: subject, sizeHint: 70000)) == $0.value
          }
          && (try? document.keyFingerprint()) != nil
        let left = (try? FileManager.default.contentsOfDirectory(atPath: ext4.description))?.filter {
          $0.contains(kind.rawValue)
        }
        row(
          "Save As onto ext4",
          "error: \(error.code.rawValue); original \(intact ? "intact" : "damaged"), \(left == [] ? "nothing left" : "left: \(left ?? [])")"
        )
      }
    }
    return rows
  }
}
