/// The help pages, in swift-argument-parser's layout.
enum HelpText {
  static func render(_ topic: CommandName?) -> String {
    guard let topic else {
      let width = CommandName.allCases.map(\.rawValue.count).max() ?? 0
      let list = CommandName.allCases.map { command in
        let padding = String(repeating: " ", count: width - command.rawValue.count + 2)
        return "  \(command.rawValue)\(padding)\(command.abstract)"
      }
      return """
        OVERVIEW: Document-scoped bookmarks: make, resolve and inspect bookmarks whose
        key lives in the document's user.docbm.key extended attribute.

        USAGE: docbm <subcommand>

        OPTIONS:
          --version   Show the version.
          -h, --help  Show help information.

        SUBCOMMANDS:
        \(list.joined(separator: "\n"))

          See 'docbm help <subcommand>' for detailed help, and the manual page,
          docbm(1) ('man docbm'), for exit statuses and JSON output.
        """
    }
    return """
      OVERVIEW: \(topic.abstract)

      USAGE: docbm \(topic.usage)

      \(body(of: topic))
      """
  }

  /// The subcommand's discussion with its OPTIONS (``CommandName/optionsHelp``) after the
  /// paragraphs that list its arguments or actions, or first when it has none.
  private static func body(of topic: CommandName) -> String {
    var paragraphs = topic.discussion.split(separator: "\n\n", omittingEmptySubsequences: false).map(
      String.init)
    let lists = paragraphs.indices.filter {
      paragraphs[$0].hasPrefix("ARGUMENTS:") || paragraphs[$0].hasPrefix("ACTIONS:")
    }
    paragraphs.insert(topic.optionsHelp, at: (lists.last ?? -1) + 1)
    return paragraphs.joined(separator: "\n\n")
  }
}
