/// A folder's entries as a tree walk reads them: every name in one buffer, each followed by
/// a NUL, and the entries in the bytewise order of their names.
///
/// A walk makes no array per name: a document's path is made from the folder's and the
/// name in one allocation, and the name is handed to `openat` where it lies.
package struct DirectoryListing {
  /// One entry: where its name lies in the listing, its inode number and its type.
  package struct Entry: Sendable {
    fileprivate let start: Int
    fileprivate let count: Int
    /// `d_ino`.
    package let inode: UInt64
    /// `d_type`; `.unknown` on filesystems that do not fill it in.
    package let type: DirectoryStream.EntryType
  }

  /// The names, each followed by a NUL.
  private var names: [UInt8] = []
  /// The entries other than `.` and `..`, in the bytewise order of their names.
  package private(set) var entries: [Entry] = []
  /// The error that ended the listing early, if one did (the entries read before it are
  /// listed).
  package let failure: SystemCallError?

  /// Reads every entry of `stream` and sorts them by name.
  package init(_ stream: DirectoryStream) {
    var names: [UInt8] = []
    names.reserveCapacity(4096)
    var entries: [Entry] = []
    entries.reserveCapacity(128)
    while let entry = stream.nextRecord({ name, inode, type -> Entry in
      let start = names.count
      names.append(contentsOf: name)
      names.append(0)
      return Entry(start: start, count: name.count, inode: inode, type: type)
    }) {
      entries.append(entry)
    }
    failure = stream.failure
    if entries.count > 1 {
      // Sorted as numbers: each name's first 8 bytes above its index (the standard library's
      // sort, comparing integers); only names that share their first 8 bytes are then
      // compared whole.
      let order = names.withUnsafeBytes { buffer -> [UInt128] in
        func name(_ index: UInt128) -> UnsafeRawBufferPointer {
          let entry = entries[Int(truncatingIfNeeded: index)]
          return UnsafeRawBufferPointer(rebasing: buffer[entry.start..<(entry.start + entry.count)])
        }
        var keys = entries.indices.map { index in
          let entry = entries[index]
          let leading = ByteOrder.leadingBytes(
            UnsafeRawBufferPointer(rebasing: buffer[entry.start..<(entry.start + entry.count)]))
          return UInt128(leading) << 64 | UInt128(index)
        }
        keys.sort()
        var runStart = 0
        for end in 1...keys.count where end == keys.count || keys[end] >> 64 != keys[runStart] >> 64 {
          if end - runStart > 1 { keys[runStart..<end].sort { ByteOrder.precedes(name($0), name($1)) } }
          runStart = end
        }
        return keys
      }
      entries = order.map { entries[Int(truncatingIfNeeded: $0)] }
    }
    self.names = names
    self.entries = entries
  }

  /// The entry's name, as an array of its own.
  package func name(of entry: Entry) -> [UInt8] {
    Array(names[entry.start..<(entry.start + entry.count)])
  }

  /// `folder` with the entry's name appended (one allocation, as
  /// ``FilePath/appending(_:)-([UInt8])`` makes it).
  package func path(of entry: Entry, in folder: FilePath) -> FilePath {
    names.withUnsafeBytes {
      folder.appending(UnsafeRawBufferPointer(rebasing: $0[entry.start..<(entry.start + entry.count)]))
    }
  }

  /// Runs `body` with the entry's name (without its NUL), where it lies in the listing.
  package func withBytes<Value>(ofName entry: Entry, _ body: (UnsafeRawBufferPointer) -> Value) -> Value {
    names.withUnsafeBytes {
      body(UnsafeRawBufferPointer(rebasing: $0[entry.start..<(entry.start + entry.count)]))
    }
  }

  /// Runs `body` with the entry's name as a C string, where it lies in the listing.
  package func withName<Value>(of entry: Entry, _ body: (UnsafePointer<CChar>) -> Value) -> Value {
    names.withUnsafeBytes { body(($0.baseAddress! + entry.start).assumingMemoryBound(to: CChar.self)) }
  }

  /// The same, for a body that throws.
  package func withName<Value, Failure: Error>(
    of entry: Entry, _ body: (UnsafePointer<CChar>) throws(Failure) -> Value
  ) throws(Failure) -> Value {
    let outcome = names.withUnsafeBytes { buffer -> Result<Value, Failure> in
      do throws(Failure) {
        return .success(try body((buffer.baseAddress! + entry.start).assumingMemoryBound(to: CChar.self)))
      } catch {
        return .failure(error)
      }
    }
    return try outcome.get()
  }

}
