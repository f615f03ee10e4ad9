/// A command line that cannot be run as given: reported on standard error with the usage
/// line, exit status 64 (`EX_USAGE`).
struct UsageError: Error, Equatable {
  let message: String
  /// The subcommand whose usage to show, when known.
  let command: CommandName?
}
