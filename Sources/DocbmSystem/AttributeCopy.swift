import CDocbmShims
import Glibc

/// Copying extended attributes from one file to another, honouring `/etc/xattr.conf` as
/// libattr reads it: names marked `skip` are left out, and so are the names marked
/// `permissions` (the ACLs), which are copied separately after the mode.
package enum AttributeCopy {
  /// A copy that left some names behind; `messages` are libattr's, one per failure.
  package struct Failure: Error, Sendable {
    package let messages: String
    /// The error of the first name that failed, when known.
    package let errno: Errno?
  }
}

extension AttributeCopy {
  /// What ``copy(from:to:key:carryingKey:)`` did.
  package struct Outcome: Sendable {
    /// The key's value as copied; `nil` when it was not (absent, left out, or failed).
    package let key: [UInt8]?
    /// Whether the source lists an access ACL (`system.posix_acl_access`).
    package let hasAccessACL: Bool
    /// Whether the source lists a default ACL (`system.posix_acl_default`).
    package let hasDefaultACL: Bool
    /// The names that could not be copied, when any could not.
    package let failure: Failure?
  }

  /// Copies every attribute `/etc/xattr.conf` lets through with one `flistxattr` and one `fgetxattr` per name, and the attribute `key`
  /// when `carryingKey` whatever the configuration says (left out otherwise), handing its
  /// value back so that nobody needs to read it again.
  /// The corresponding C function is the shim's `cdocbm_copy_attributes` (libattr's
  /// `attr_copy_action` for the configuration).
  package static func copy(
    from source: FileDescriptor, to destination: FileDescriptor, key: String, carryingKey: Bool
  ) -> Outcome {
    var keyLength = -1
    var aclNames: Int32 = 0
    var keyValue = [UInt8](repeating: 0, count: 256)
    var messages = [CChar](repeating: 0, count: 2048)
    var failureErrno: Int32 = 0
    let result = keyValue.withUnsafeMutableBytes { keyBuffer in
      key.withCString { name in
        cdocbm_copy_attributes(
          source.rawValue, destination.rawValue, name, carryingKey ? 1 : 0, keyBuffer.baseAddress,
          keyBuffer.count, &keyLength, &aclNames, &messages, messages.count, &failureErrno)
      }
    }
    var failure: Failure?
    if result != 0 {
      let text = messages.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
      failure = Failure(
        messages: text.isEmpty ? "copying attributes failed" : text,
        errno: failureErrno == 0 ? nil : Errno(rawValue: failureErrno))
    }
    if keyLength >= 0 { keyValue.removeSubrange(keyLength...) }
    return Outcome(
      key: keyLength >= 0 ? keyValue : nil, hasAccessACL: aclNames & 1 != 0, hasDefaultACL: aclNames & 2 != 0,
      failure: failure)
  }
}
