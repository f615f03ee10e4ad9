import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Glibc
import Testing

@testable import DocumentBookmarkStore

/// GLib's list of recently used files, written by GLib itself, read and imported.
@Suite("Importing GTK's recently used files")
struct RecentlyUsedFilesTests {
  /// Writes `recently-used.xbel` at `list` with GLib's own `GBookmarkFile` (through ctypes,
  /// as any GLib program would), one `(path, application)` registration at a time, in order.
  private func writeWithGLib(_ list: FilePath, _ uses: [(path: String, application: String)]) throws -> Bool {
    let script = """
      import ctypes, json, sys
      g = ctypes.CDLL("libglib-2.0.so.0")
      g.g_bookmark_file_new.restype = ctypes.c_void_p
      g.g_filename_to_uri.restype = ctypes.c_char_p
      g.g_filename_to_uri.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p]
      g.g_bookmark_file_add_application.argtypes = [ctypes.c_void_p] + [ctypes.c_char_p] * 3
      g.g_bookmark_file_set_mime_type.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p]
      g.g_bookmark_file_to_file.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
      book = g.g_bookmark_file_new()
      for path, app in json.loads(sys.argv[2]):
          uri = path.encode() if "://" in path else g.g_filename_to_uri(path.encode(), None, None)
          g.g_bookmark_file_set_mime_type(book, uri, b"text/plain")
          g.g_bookmark_file_add_application(book, uri, app.encode(), (app + " %u").encode())
      sys.exit(0 if g.g_bookmark_file_to_file(book, sys.argv[1].encode(), None) else 1)
      """
    let uses = try String(
      decoding: JSONEncoder().encode(uses.map { [$0.path, $0.application] }), as: UTF8.self)
    let result = run("/usr/bin/python3", ["-c", script, list.description, uses])
    if result.status != 0 {
      print("skipped: GLib could not write a list: \(result.error)")
      return false
    }
    return true
  }

  @Test("GLib's list is read: local files decoded, other URIs passed over, applications and times kept")
  func read() throws {
    let files = try StoreScratch()
    let list = files.scratch.path("recently-used.xbel")
    let odd = files.scratch.path("x y/plan & notes.md").description
    guard
      try writeWithGLib(
        list,
        [
          (odd, "gnome-text-editor"), (odd, "gedit"), (files.scratch.path("café.txt").description, "gedit"),
          ("https://example.org/paper.pdf", "evince"),
        ])
    else { return }
    let entries = try RecentlyUsedFiles.read(list)
    #expect(entries.map(\.path.description) == [odd, files.scratch.path("café.txt").description])
    #expect(entries[0].applications.map(\.name) == ["gnome-text-editor", "gedit"])
    #expect(entries[0].mimeType == "text/plain")
    // GLib's time, read back: within a minute of now.
    let used = try #require(entries[0].application("gedit")?.lastUsed)
    #expect(abs(Double(used.seconds) - Date().timeIntervalSince1970) < 60)
  }

  @Test("an import takes one application's existing files, most recent first, and passes over held paths")
  func importOneApplication() async throws {
    let files = try StoreScratch()
    let list = files.scratch.path("recently-used.xbel")
    let older = try files.scratch.file("notes/older.md")
    let newer = try files.scratch.file("notes/newer.md")
    let other = try files.scratch.file("notes/other.md")
    let gone = files.scratch.path("notes/gone.md")
    guard
      try writeWithGLib(
        list,
        [
          (older.description, "gedit"), (gone.description, "gedit"), (other.description, "evince"),
          (newer.description, "gedit"),
        ])
    else { return }
    let store = files.store(.recents(limit: 10))
    let held = try files.scratch.file("notes/held.md")
    try await store.add(target: held, key: held.description)
    let imported = try await store.importRecentlyUsed(
      try RecentlyUsedFiles.read(list), application: "gedit", key: { $0.description })
    #expect(imported.map(\.lastKnownPath) == [older, newer])
    #expect(store.records.map(\.lastKnownPath) == [newer, older, held])
    // Again: every path is held now, nothing is added.
    #expect(
      try await store.importRecentlyUsed(try RecentlyUsedFiles.read(list), application: "gedit") {
        $0.description
      }
      .isEmpty)
  }

  @Test("a list that is missing, truncated, not XBEL or hostile is refused with a typed error")
  func refused() throws {
    let files = try StoreScratch()
    let missing = files.scratch.path("none.xbel")
    #expect(throws: RecentlyUsedFilesError.self) { try RecentlyUsedFiles.read(missing) }
    // A FIFO where the list should be is refused at once, never waited on.
    let fifo = files.scratch.path("fifo.xbel")
    #expect(mkfifo(fifo.description, 0o600) == 0)
    #expect(
      throws: RecentlyUsedFilesError.unreadable(
        path: fifo, message: "it is not a regular file (a FIFO, a device, a socket or a folder)")
    ) {
      try RecentlyUsedFiles.read(fifo)
    }
    // A list others may write, or another user's: its entries could be anyone's choice.
    let shared = try files.scratch.file("shared.xbel", "<xbel version=\"1.0\"></xbel>")
    #expect(try RecentlyUsedFiles.read(shared).isEmpty)
    #expect(chmod(shared.description, 0o666) == 0)
    #expect(
      throws: RecentlyUsedFilesError.untrusted(path: shared, reason: "other users may write it (mode 666)")
    ) {
      try RecentlyUsedFiles.read(shared)
    }
    if Capabilities.isRoot {
      let foreign = try files.scratch.file("foreign.xbel", "<xbel version=\"1.0\"></xbel>")
      #expect(chown(foreign.description, 65534, 65534) == 0)
      #expect(
        throws: RecentlyUsedFilesError.untrusted(
          path: foreign, reason: "it belongs to user 65534, not to you (0)")
      ) {
        try RecentlyUsedFiles.read(foreign)
      }
    }
    for (name, text, line) in [
      ("truncated", "<?xml version=\"1.0\"?>\n<xbel version=\"1.0\">\n  <bookmark href=\"file:///a\">", 3),
      ("other", "<?xml version=\"1.0\"?>\n<html></html>\n", 1),
      ("doctype", "<?xml version=\"1.0\"?>\n<!DOCTYPE x [<!ENTITY a \"aaaa\">]>\n<xbel/>", 2),
      ("mismatched", "<xbel>\n<bookmark></info>\n</xbel>", 2),
      ("entity", "<xbel>\n<bookmark href=\"&a;\"/></xbel>", 2),
      ("two roots", "<xbel/>\n<xbel/>", 2),
    ] {
      let path = try files.scratch.file("\(name).xbel", text)
      do {
        _ = try RecentlyUsedFiles.read(path)
        Issue.record("\(name) was read")
      } catch {
        guard case .malformed(_, let found, _) = error else {
          Issue.record("\(name): \(error)")
          continue
        }
        #expect(found == line, "\(name): \(error)")
      }
    }
  }

  @Test("markup: entities, character references, CDATA and comments; times as GLib writes them")
  func markupAndTimes() throws {
    let events = try MarkupReader.events(
      in: Array(
        "<?xml version='1.0'?><!-- a --><a x='&lt;&amp;&#233;&#x263A;' y=\"q\"><![CDATA[<b>]]><b/></a>".utf8))
    #expect(
      events == [
        .start(name: "a", attributes: ["x": "<&é☺", "y": "q"]), .start(name: "b", attributes: [:]),
        .end(name: "b"), .end(name: "a"),
      ])
    let time = try #require(RecentlyUsedFiles.timestamp("2026-12-05T04:41:39.275792Z"))
    let expected = try #require(ISO8601DateFormatter().date(from: "2026-12-05T04:41:39Z"))
    #expect(time.seconds == Int64(expected.timeIntervalSince1970) && time.nanoseconds == 275_792_000)
    #expect(RecentlyUsedFiles.timestamp("1969-12-31T23:59:59Z")?.seconds == -1)
    #expect(RecentlyUsedFiles.timestamp("2026-13-05T04:41:39Z") == nil)
    // Years past what GLib writes (four digits) are refused, not computed into an overflow.
    #expect(RecentlyUsedFiles.timestamp("300000000000-01-01T00:00:00Z") == nil)
    #expect(RecentlyUsedFiles.timestamp("9223372036854775807-01-01T00:00:00Z") == nil)
    #expect(RecentlyUsedFiles.timestamp("0-01-01T00:00:00Z") == nil)
    #expect(RecentlyUsedFiles.timestamp("9999-12-31T23:59:60Z") != nil)
    #expect(RecentlyUsedFiles.localPath("file:///tmp/caf%C3%A9") == FilePath("/tmp/café"))
    #expect(RecentlyUsedFiles.localPath("file://host/tmp/a") == nil)
    #expect(RecentlyUsedFiles.localPath("file:///tmp/%00") == nil)
  }
}
