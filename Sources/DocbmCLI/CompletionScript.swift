/// Shell completion scripts, generated from the subcommands' own descriptions so that they
/// never drift from the parser.
enum CompletionScript {
  static var bash: String {
    let commands = CommandName.allCases.map(\.rawValue).joined(separator: " ")
    let cases = CommandName.allCases.map { command in
      let words =
        command == .help
        ? commands : command == .completions ? "bash zsh" : command.options.joined(separator: " ")
      let files = command.takesPaths ? " COMPREPLY+=( $(compgen -f -- \"$current\") );" : ""
      return "    \(command.rawValue)) COMPREPLY=( $(compgen -W \"\(words)\" -- \"$current\") );\(files) ;;"
    }.joined(separator: "\n")
    return """
      # bash completion for docbm
      _docbm() {
        local current=${COMP_WORDS[COMP_CWORD]}
        if [ "$COMP_CWORD" -eq 1 ]; then
          COMPREPLY=( $(compgen -W "\(commands) --help --version" -- "$current") )
          return
        fi
        case ${COMP_WORDS[1]} in
      \(cases)
        esac
      }
      complete -o filenames -F _docbm docbm
      """
  }

  static var zsh: String {
    let commands = CommandName.allCases.map { "    '\($0.rawValue):\($0.abstract.replacingQuote())'" }.joined(
      separator: "\n")
    let cases = CommandName.allCases.map { command in
      let options = command.options.map { "'\($0)'" }.joined(separator: " ")
      let files = command.takesPaths ? " '*:file:_files'" : ""
      return "    \(command.rawValue)) _arguments \(options)\(files) ;;"
    }.joined(separator: "\n")
    return """
      #compdef docbm
      # zsh completion for docbm
      _docbm() {
        local -a commands
        commands=(
      \(commands)
        )
        if (( CURRENT == 2 )); then
          _describe 'command' commands
          return
        fi
        case $words[2] in
      \(cases)
        esac
      }
      _docbm "$@"
      """
  }
}

extension String {
  /// Safe inside single quotes in a shell script.
  fileprivate func replacingQuote() -> String {
    split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''")
  }
}
