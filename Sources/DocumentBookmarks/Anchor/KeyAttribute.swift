import DocbmSystem

/// The `user.docbm.key` extended attribute: its name, its versioned value, and the
/// reading and exclusive creation of a document's key.
///
/// Value layout, version 1 (46 bytes; see docs/format.md):
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 4 | magic `DBMK` |
/// | 4 | 1 | version, 1 |
/// | 5 | 1 | algorithm, 1 (HMAC-SHA-256 tags, BLAKE2b fingerprints) |
/// | 6 | 32 | key |
/// | 38 | 8 | fingerprint of the key, as a check against damage |
package enum KeyAttribute {
  /// The attribute's name.
  package static let name = staticName.description
  /// The name as a C string in the program's constant data, for system calls made without
  /// building one: no array, so nothing to count or look up on the way.
  static var cName: UnsafePointer<CChar> {
    UnsafeRawPointer(staticName.utf8Start).assumingMemoryBound(to: CChar.self)
  }
  /// The one spelling of the name, which both forms above are made of.
  private static let staticName: StaticString = "user.docbm.key"
  static let magic: [UInt8] = Array("DBMK".utf8)
  static let version: UInt8 = 1
  static let algorithm: UInt8 = 1
  static let valueLength = 46

  /// A key attribute value as found on a document.
  package enum Found: Sendable {
    case absent
    case key(DocumentKey)
    /// The value is there but is not a key this build can use; `reason` says why.
    case malformed(reason: String, unsupportedVersion: Bool)
  }

  /// The value stored for `key`.
  package static func encode(_ key: DocumentKey) -> [UInt8] {
    magic + [version, algorithm] + key.bytes + key.fingerprint.bytes
  }

  /// The fingerprint stored in the last eight bytes of a value of ``valueLength`` bytes
  /// (not checked against the key); `nil` for a value of another length.
  static func storedFingerprint(of value: UnsafeRawBufferPointer) -> KeyFingerprint? {
    guard value.count == valueLength else { return nil }
    return ByteReader(value).bigEndian(UInt64.self, at: valueLength - KeyFingerprint.byteCount).map(
      KeyFingerprint.init(value:))
  }

  /// Parses a stored value, checking magic, version, length and the fingerprint.
  package static func decode(_ value: [UInt8]) -> Found {
    value.withUnsafeBytes { decode($0) }
  }

  /// ``decode(_:)-([UInt8])`` of a value where it lies.
  static func decode(_ value: UnsafeRawBufferPointer) -> Found {
    let reader = ByteReader(value)
    guard reader.starts(with: magic), let format = reader.byte(at: 4), let keyAlgorithm = reader.byte(at: 5)
    else {
      return .malformed(
        reason: "the value does not start with the docbm key magic", unsupportedVersion: false)
    }
    guard format == version else {
      return .malformed(reason: "key format version \(format) is not supported", unsupportedVersion: true)
    }
    guard keyAlgorithm == algorithm else {
      return .malformed(reason: "key algorithm \(keyAlgorithm) is not supported", unsupportedVersion: true)
    }
    guard value.count == valueLength, let keyBytes = reader.slice(6..<38), let stored = reader.slice(38..<46)
    else {
      return .malformed(
        reason: "the value is \(value.count) bytes, not \(valueLength)", unsupportedVersion: false)
    }
    guard let key = DocumentKey(bytes: Array(keyBytes)),
      key.fingerprint.withUnsafeBytes({ ConstantTime.equal($0, stored) })
    else {
      return .malformed(
        reason: "the stored fingerprint does not match the key (damaged value)", unsupportedVersion: false)
    }
    return .key(key)
  }

  /// Reads the key attribute through an open descriptor of the document.
  package static func read(
    from document: FileDescriptor, path: FilePath
  ) throws(DocbmError) -> Found {
    // The usual value fits a stack buffer: read there, without an array for it (the
    // checker reads one key per document). Anything else takes the general path.
    let quick = withUnsafeTemporaryAllocation(byteCount: 64, alignment: 8) { buffer -> Found? in
      switch ExtendedAttributes.readSmallValue(named: cName, of: .descriptor(document), into: buffer) {
      case .value(let length): decode(UnsafeRawBufferPointer(rebasing: buffer[..<length]))
      case .absent: .absent
      case .unread: nil
      }
    }
    if let quick { return quick }
    return try readAnySize(from: document, path: path)
  }

  /// Reads the key attribute through an open descriptor, whatever the size of its value.
  private static func readAnySize(from document: FileDescriptor, path: FilePath) throws(DocbmError) -> Found {
    do {
      guard let value = try ExtendedAttributes.value(name, of: .descriptor(document), sizeHint: 64) else {
        return .absent
      }
      return decode(value)
    } catch {
      throw DocbmError(error, operation: .readKey, path: path)
    }
  }

  /// The key of the document open as `fd`, through ``DocumentKeyCache``: a key read
  /// recently (a tree of copies carries one key thousands of times) is neither decoded nor
  /// fingerprinted again, and comes with its MAC schedule. `nil` when the document has no
  /// key.
  ///
  /// - Throws: ``DocbmError`` `keyMalformed` or `unsupportedVersion` for a value that
  ///   cannot be used, and the codes of ``DocbmError/Operation`` `readKey` when the
  ///   attribute cannot be read (`unsupportedFilesystem` on a filesystem without user
  ///   extended attributes).
  static func cachedKey(from document: FileDescriptor, path: FilePath) throws(DocbmError)
    -> DocumentKeyCache.Entry?
  {
    let quick = withUnsafeTemporaryAllocation(byteCount: 64, alignment: 8) {
      buffer -> Result<DocumentKeyCache.Entry?, DocbmError>? in
      switch ExtendedAttributes.readSmallValue(named: cName, of: .descriptor(document), into: buffer) {
      case .value(let length):
        let value = UnsafeRawBufferPointer(rebasing: buffer[..<length])
        if let entry = DocumentKeyCache.entry(forValue: value) { return .success(entry) }
        return Result { () throws(DocbmError) in
          try decode(value).key(of: path).map(DocumentKeyCache.Entry.init)
        }
      case .absent: return .success(nil)
      case .unread: return nil
      }
    }
    if let quick { return try quick.get() }
    return try readAnySize(from: document, path: path).key(of: path).map(DocumentKeyCache.Entry.init)
  }

  /// Reads the key attribute by path, following symbolic links (the cheapest read).
  package static func read(atPath path: FilePath) throws(DocbmError) -> Found {
    do {
      guard
        let value = try ExtendedAttributes.value(
          name, of: .path(path, followSymlinks: true), sizeHint: 64)
      else { return .absent }
      return decode(value)
    } catch {
      throw DocbmError(error, operation: .readKey, path: path)
    }
  }

  /// The document's key, created when there is none.
  ///
  /// Creation is exclusive (`XATTR_CREATE`): when two processes create at once, one wins
  /// and the other reads and uses the winner's key, so both end with one key.
  ///
  /// - Returns: the key and whether this call created it.
  /// - Throws: ``DocbmError`` with `keyMalformed` or `unsupportedVersion` for a value that
  ///   cannot be used (it is never overwritten), and the codes of ``DocbmError/Operation``
  ///   `writeKey` (`unsupportedFilesystem`, `readOnlyFilesystem`, `immutable`,
  ///   `permissionDenied`, `noSpace`) when a new key cannot be stored.
  /// `preferred`, when given, is the key stored if the document has none (a key made for
  /// an earlier version of the document that a save replaced meanwhile).
  package static func readOrCreate(
    on document: FileDescriptor, path: FilePath, preferring preferred: DocumentKey? = nil
  ) throws(DocbmError) -> (key: DocumentKey, created: Bool) {
    for _ in 0..<3 {
      switch try read(from: document, path: path) {
      case .key(let key): return (key, false)
      case .malformed(let reason, let unsupported):
        throw malformedError(reason: reason, unsupportedVersion: unsupported, path: path)
      case .absent:
        let key = preferred ?? DocumentKey.random()
        do {
          try ExtendedAttributes.set(name, to: encode(key), on: .descriptor(document), mode: .createOnly)
          return (key, true)
        } catch  where error.errno == .fileExists {
          continue  // another process created it first; read theirs
        } catch {
          throw DocbmError(error, operation: .writeKey, path: path)
        }
      }
    }
    throw DocbmError(
      .systemFailure, path: path,
      message: "the key of \(path) kept changing while it was being created")
  }

  /// Puts `key` on a document that has none (`XATTR_CREATE`: never replaces a key),
  /// through a descriptor the caller opened and checked.
  ///
  /// - Throws: ``DocbmError``; `keyMismatch` when the document got a key meanwhile.
  static func restore(_ key: DocumentKey, on fd: FileDescriptor, path: FilePath) throws(DocbmError) {
    do {
      try ExtendedAttributes.set(name, to: encode(key), on: .descriptor(fd), mode: .createOnly)
    } catch  where error.errno == .fileExists {
      throw DocbmError(.keyMismatch, path: path, message: "\(path) got a key meanwhile; it was left as it is")
    } catch {
      throw DocbmError(error, operation: .writeKey, path: path)
    }
  }

  /// The error for a key value that cannot be used.
  package static func malformedError(
    reason: String, unsupportedVersion: Bool, path: FilePath
  ) -> DocbmError {
    DocbmError(
      unsupportedVersion ? .unsupportedVersion : .keyMalformed, path: path,
      message: "the key attribute \(name) of \(path) cannot be used: \(reason)",
      recommendation: .pickAgain)
  }
}

extension KeyAttribute.Found {
  /// The key, or `nil` when the document has none.
  ///
  /// - Throws: ``DocbmError`` `keyMalformed` or `unsupportedVersion` for a value that cannot
  ///   be used.
  package func key(of path: FilePath) throws(DocbmError) -> DocumentKey? {
    switch self {
    case .absent: return nil
    case .key(let key): return key
    case .malformed(let reason, let unsupported):
      throw KeyAttribute.malformedError(reason: reason, unsupportedVersion: unsupported, path: path)
    }
  }
}
