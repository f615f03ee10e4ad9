import DocbmSystem
public import DocumentBookmarks

/// Which file a document is: its device, inode number and birth time, as `statx(2)` gives
/// them.
///
/// The birth time tells apart two files that held one inode number in turn: a filesystem
/// gives the number of a file just deleted to the next file made, so `cp B tmp` after
/// `mv tmp A` may get A's old number. Where the filesystem keeps no birth time it is `nil`,
/// and only device and inode tell files apart.
///
/// A rename or a move within one filesystem keeps a document's identity; a save that writes
/// a new file and renames it over the document (`sed -i`, Python's `os.replace`, most
/// editors) gives the document a new one. ``DocumentEvent`` carries both, so an app can tell
/// its own save (whose new identity it knows) from another program's.
public struct DocumentIdentity: Hashable, Sendable, Codable, CustomStringConvertible {
  /// The device: the major number in the high 32 bits, the minor in the low.
  public let device: UInt64
  /// The inode number on that device.
  public let inode: UInt64
  /// When the file was made, when the filesystem says.
  public let birthTime: Timestamp?

  /// An identity from its parts.
  public init(device: UInt64, inode: UInt64, birthTime: Timestamp? = nil) {
    self.device = device
    self.inode = inode
    self.birthTime = birthTime
  }

  /// The identity of the file at `path` (a final symbolic link is not followed).
  ///
  /// - Throws: `DocbmError` (`notFound`, `permissionDenied`, …) when it cannot be read.
  public static func of(_ path: FilePath) throws(DocbmError) -> DocumentIdentity {
    do {
      return DocumentIdentity(try FileStatus.of(path, followSymlinks: false))
    } catch {
      throw DocbmError(error, operation: .openDocument, path: path)
    }
  }

  init(_ status: FileStatus) {
    device = UInt64(status.device.major) << 32 | UInt64(status.device.minor)
    inode = status.inode
    birthTime = status.birthTime
  }

  /// Whether this file is one that this process's saves put in place (``DocumentEvent/isOwnSave``).
  var isOwnSave: Bool {
    OwnSaves.contains(
      major: UInt32(device >> 32), minor: UInt32(device & 0xFFFF_FFFF), inode: inode, birthTime: birthTime)
  }

  /// Whether this file is this process's save, written through a descriptor that the save
  /// closed after renaming it into place: one close after writing is the save's own.
  var closesAfterOwnSave: Bool {
    OwnSaves.closesAfterRename(
      major: UInt32(device >> 32), minor: UInt32(device & 0xFFFF_FFFF), inode: inode, birthTime: birthTime)
  }

  /// `major:minor:inode` (the birth time, which only tells apart files that held one inode
  /// number in turn, is left out).
  public var description: String { "\(device >> 32):\(device & 0xFFFF_FFFF):\(inode)" }
}
