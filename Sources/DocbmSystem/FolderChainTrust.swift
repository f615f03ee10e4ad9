/// Whether another user could rename, remove or replace the entries of a folder: the rule
/// for the folders that hold the escrow and a store, whose files are checked when opened
/// and must not be swapped after.
///
/// A folder and every folder above it (after resolving links) must be owned by the user
/// docbm runs as or by root, and writable neither by others nor by a group other than the
/// user's own, unless it is sticky (as `/tmp` is: there only an entry's owner may rename or
/// remove it).
package enum FolderChainTrust {
  /// What is wrong with one folder of the chain.
  package enum Problem: Sendable, Equatable, CustomStringConvertible {
    case ownedBy(UInt32)
    case writableByEveryone
    case writableByGroup(UInt32)

    package var description: String {
      switch self {
      case .ownedBy(let owner): "belongs to user \(owner)"
      case .writableByEveryone: "is writable by everyone"
      case .writableByGroup(let group): "is writable by group \(group)"
      }
    }
  }

  /// The first folder, from `/` down to `folder`, whose entries another user could change,
  /// and why; `nil` when there is none. A folder that cannot be looked at is passed over
  /// (what is below it is still checked).
  package static func problem(from folder: FilePath) -> (folder: FilePath, problem: Problem)? {
    // A path that cannot be resolved is checked as it reads.
    let real = (try? SymbolicLink.canonicalPath(folder.absolute)) ?? folder.absolute
    var current = FilePath.root
    var chain = [current]
    for component in real.components {
      current = current.appending(component)
      chain.append(current)
    }
    let user = ProcessCredentials.effectiveUser
    for folder in chain {
      // Passed over when it cannot be looked at, as documented.
      guard let status = try? FileStatus.of(folder, followSymlinks: false) else { continue }
      let sticky = status.permissions & 0o1000 != 0
      guard status.owner == user || status.owner == 0 else { return (folder, .ownedBy(status.owner)) }
      if status.permissions & 0o002 != 0 && !sticky { return (folder, .writableByEveryone) }
      if status.permissions & 0o020 != 0 && !sticky && status.group != ProcessCredentials.effectiveGroup {
        return (folder, .writableByGroup(status.group))
      }
    }
    return nil
  }
}
