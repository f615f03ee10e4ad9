import DocumentBookmarks

/// A `docbm_escrow_entries`: the keys of the user's escrow as they were when listed, with
/// their strings in C form. The keys themselves stay inside the library: an entry shows
/// only its fingerprint.
final class EscrowEntriesHandle: CHandle {
  /// One key.
  struct Entry {
    let key: CStringCopy
    let created: Int64
    let documents: [Document]
  }

  /// One of a key's documents.
  struct Document {
    let path: CStringCopy
    let origin: CStringCopy
    let confirmed: Int64
  }

  let entries: [Entry]

  init(_ entries: [EscrowEntry]) {
    self.entries = entries.map { entry in
      Entry(
        key: CStringCopy(entry.fingerprint.description), created: entry.created.cNanoseconds,
        documents: entry.documents.map { document in
          Document(
            path: CStringCopy(document.path.bytes), origin: CStringCopy(document.origin.rawValue),
            confirmed: document.confirmed.cNanoseconds)
        })
    }
  }

  deinit {
    for entry in entries {
      entry.key.release()
      for document in entry.documents {
        document.path.release()
        document.origin.release()
      }
    }
  }

  /// The entry at `index`, or `nil` past the end.
  func entry(_ index: UInt) -> Entry? {
    index < entries.count ? entries[Int(index)] : nil
  }

  /// Document `document` of the entry at `index`, or `nil` past the end of either.
  func document(_ index: UInt, _ document: UInt) -> Document? {
    guard let entry = entry(index), document < entry.documents.count else { return nil }
    return entry.documents[Int(document)]
  }
}
