import CDocbmShims
import Glibc

/// Copying extended attributes from one file to another with libattr's `attr_copy_fd`,
/// which honours `/etc/xattr.conf`: names marked `skip` are left out, and so are the names
/// marked `permissions` (the ACLs), which are copied separately after the mode.
package enum AttributeCopy {
  /// A copy that left some names behind; `messages` are libattr's, one per failure.
  package struct Failure: Error, Sendable {
    package let messages: String
  }

  /// Copies every attribute the caller can read from `source` to `destination`.
  ///
  /// A source filesystem without attributes copies nothing and succeeds.
  /// - Throws: ``Failure`` when any name could not be copied.
  /// The corresponding C function is libattr's `attr_copy_fd`.
  package static func copy(
    from source: FileDescriptor, path sourcePath: FilePath,
    to destination: FileDescriptor, path destinationPath: FilePath
  ) throws(Failure) {
    var messages = [CChar](repeating: 0, count: 2048)
    let result = sourcePath.withCString { source_ in
      destinationPath.withCString { destination_ in
        docbm_attr_copy_fd(
          source_, source.rawValue, destination_, destination.rawValue, &messages, messages.count)
      }
    }
    if result != 0 {
      let text = messages.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
      throw Failure(messages: text.isEmpty ? "attr_copy_fd failed" : text)
    }
  }
}
