/// What a mistyped name (a subcommand, an option) most likely meant, for "Did you mean"
/// in a usage error.
enum MistypedName {
  /// The name among `names` that `typed` most likely meant: the only one it begins (when
  /// it is two characters or more), else the nearest within two edits.
  static func closest(to typed: String, among names: [String]) -> String? {
    let prefixed = names.filter { $0.hasPrefix(typed) }
    if typed.count >= 2, prefixed.count == 1 { return prefixed[0] }
    let scored = names.map { ($0, editDistance(typed, $0)) }.filter { $0.1 <= 2 }
    return scored.min { $0.1 < $1.1 }?.0
  }

  /// Levenshtein distance, counting a swap of neighbours as one edit.
  private static func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { table[i][0] = i }
    for j in 0...b.count { table[0][j] = j }
    for i in 1...a.count {
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        table[i][j] = Swift.min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          table[i][j] = Swift.min(table[i][j], table[i - 2][j - 2] + 1)
        }
      }
    }
    return table[a.count][b.count]
  }
}
