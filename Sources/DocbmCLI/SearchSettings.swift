import DocumentBookmarks

/// `--search nearby|filesystem` and `--search-time SECONDS|none`: how far `resolve` and
/// `check` look for a target that left its recorded paths (``SearchBudget``).
enum SearchSettings {
  /// The options, as `resolve` and `check` declare them.
  static let options = [
    CommandOption(
      "--search", value: "REACH",
      help:
        "How far to look for a target that is not at its recorded paths: nearby (the folders around its old place and the document's) or filesystem (then every folder you can read on its filesystem, your home folder first: the default)."
    ),
    CommandOption(
      "--search-time", value: "N",
      help:
        "The longest the search of whole filesystems runs, in seconds (N), for all the targets of the command together (default 10); none for no limit. A target not found before it runs out is notFoundNearby, not missing."
    ),
  ]

  /// The budget the options given in `scan` ask for: ``SearchBudget/standard`` changed by
  /// each option given.
  ///
  /// - Throws: ``UsageError`` for a value that is not one of those the options take.
  static func budget(_ scan: OptionScan, command: CommandName) throws(UsageError) -> SearchBudget {
    var budget = SearchBudget.standard
    if let value = scan.value(of: "--search") {
      let text = String(decoding: value, as: UTF8.self)
      guard let reach = SearchBudget.Reach(rawValue: text) else {
        throw UsageError(
          message: "The value '\(text)' is invalid for '--search': expected nearby or filesystem",
          command: command)
      }
      budget.reach = reach
    }
    if let value = scan.value(of: "--search-time") {
      let text = String(decoding: value, as: UTF8.self)
      if text == "none" {
        budget.filesystemTimeLimit = nil
      } else if let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= 1e9 {
        budget.filesystemTimeLimit = .milliseconds(Int64((seconds * 1000).rounded()))
      } else {
        throw UsageError(
          message:
            "The value '\(text)' is invalid for '--search-time': expected a number of seconds, or none",
          command: command)
      }
    }
    return budget
  }
}
