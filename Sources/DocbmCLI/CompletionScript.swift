/// Shell completion scripts, generated from the subcommands' own descriptions so that they
/// never drift from the parser.
enum CompletionScript {
  /// For bash: file names with spaces stay whole (`IFS` is a newline, `-o filenames`
  /// quotes them); after `probe --` the command's name, then files.
  static var bash: String {
    let commands = CommandName.allCases.map(\.rawValue).joined(separator: " ")
    let cases = CommandName.allCases.map { command in
      switch command {
      case .help:
        return "    help) COMPREPLY=( $(_docbm_words \"\(commands)\") ) ;;"
      case .completions:
        return "    completions) COMPREPLY=( $(_docbm_words \"bash zsh\") ) ;;"
      case .probe:
        let options = command.optionWords
        return """
              probe)
                local i
                for (( i = 2; i < COMP_CWORD; i++ )); do
                  if [ "${COMP_WORDS[i]}" = -- ]; then
                    if [ $(( i + 1 )) -eq "$COMP_CWORD" ]; then
                      COMPREPLY=( $(compgen -c -- "$current") )
                    else
                      COMPREPLY=( $(compgen -f -- "$current") )
                    fi
                    return
                  fi
                done
                \(String(valueCompletion(command).drop { $0.isWhitespace }))
                COMPREPLY=( $(_docbm_words "\(options) --") ) ;;
          """
      case _ where !command.actions.isEmpty:
        // The first operand is the action; an option that takes a value skips it.
        let valued = command.options.filter { $0.value != nil }.flatMap(\.names).joined(separator: " ")
        return """
              \(command.rawValue))\(valueCompletion(command))
                local i action= options="\(command.optionWords)" valued=" \(valued) "
                for (( i = first + 1; i < COMP_CWORD; i++ )); do
                  if [[ $valued == *" ${COMP_WORDS[i]} "* ]]; then i=$(( i + 1 ))
                  elif [[ ${COMP_WORDS[i]} != -* ]]; then action=${COMP_WORDS[i]}; break; fi
                done
                if [ -z "$action" ]; then
                  COMPREPLY=( $(_docbm_words "\(command.actions.joined(separator: " ")) $options") )
                else
                  COMPREPLY=( $(_docbm_words "$options") ); COMPREPLY+=( $(compgen -f -- "$current") )
                fi ;;
          """
      default:
        let options = command.optionWords
        let files = command.takesPaths ? " COMPREPLY+=( $(compgen -f -- \"$current\") );" : ""
        return
          "    \(command.rawValue))\(valueCompletion(command))\n      COMPREPLY=( $(_docbm_words \"\(options)\") );\(files) ;;"
      }
    }.joined(separator: "\n")
    return """
      # bash completion for docbm
      # The words of $1 that start with the word being completed, one per line.
      _docbm_words() {
        local IFS=$' \\t\\n'
        compgen -W "$1" -- "$current"
      }
      _docbm() {
        local current=${COMP_WORDS[COMP_CWORD]}
        # One candidate per line: a file name with spaces is one word.
        local IFS=$'\\n'
        local first=1
        while [ "$first" -lt "$COMP_CWORD" ] && [ "${COMP_WORDS[first]}" = --json ]; do
          first=$(( first + 1 ))
        done
        if [ "$COMP_CWORD" -eq "$first" ]; then
          COMPREPLY=( $(_docbm_words "\(commands) --json --help --version") )
          return
        fi
        case ${COMP_WORDS[first]} in
      \(cases)
        esac
      }
      complete -o filenames -o bashdefault -F _docbm docbm
      """
  }

  /// For zsh: `_arguments` with the subcommand's words shifted, so that every subcommand
  /// completes its options, files where it takes paths, shells, subcommands for `help`,
  /// and after `probe --` a command line (`_normal`).
  static var zsh: String {
    let commands = CommandName.allCases.map { "    '\($0.rawValue):\($0.abstract.replacingQuote())'" }.joined(
      separator: "\n")
    let cases = CommandName.allCases.map { command -> String in
      let options = (command.options + [.help]).flatMap(optionSpecs).map { "'\($0)'" }.joined(separator: " ")
      switch command {
      case .help: return "        help) _describe 'subcommand' subcommands ;;"
      case .completions: return "        completions) _arguments \(options) '1:shell:(bash zsh)' ;;"
      case .probe:
        // After `--`, the rest is a command line of its own.
        return """
                  probe)
                    local dashes=${words[(ie)--]}
                    if (( dashes < CURRENT )); then
                      shift $dashes words
                      (( CURRENT -= dashes ))
                      if (( CURRENT == 1 )); then _command_names -e; else _normal; fi
                    else
                      _arguments \(options) '1:command:_command_names -e' '*::argument:_normal'
                    fi ;;
          """
      case .decode, .resolve:
        let first = command == .resolve ? " '1:document:_files'" : ""
        return "        \(command.rawValue)) _arguments \(options)\(first) '*:bookmark (text form, or -):' ;;"
      case .demo: return "        demo) _arguments \(options) ;;"
      case _ where !command.actions.isEmpty:
        let actions = command.actions.joined(separator: " ")
        return
          "        \(command.rawValue)) _arguments -S \(options) '1:action:(\(actions))' '*:file:_files' ;;"
      default:
        return "        \(command.rawValue)) _arguments -S \(options) '*:file:_files' ;;"
      }
    }.joined(separator: "\n")
    return """
      #compdef docbm
      # zsh completion for docbm
      _docbm() {
        # Not `commands`: that name is zsh's table of the programs in PATH, which
        # `_command_names` reads (after `probe --`).
        local -a subcommands
        subcommands=(
      \(commands)
        )
        local curcontext="$curcontext" state line
        _arguments -C \\
          '(- *)--help[Show help information]' '(- *)--version[Show the version]' \\
          '--json[Print a JSON object]' \\
          '1:subcommand:->subcommand' '*::argument:->argument'
        case $state in
          subcommand) _describe 'subcommand' subcommands ;;
          argument)
            case $words[1] in
      \(cases)
            esac ;;
        esac
      }
      _docbm "$@"
      """
  }

  /// For bash: after an option that takes a file or a folder, names of those; nothing
  /// (an empty string) when the subcommand has no such option.
  private static func valueCompletion(_ command: CommandName) -> String {
    command.options.compactMap { option -> String? in
      let kind: String
      switch option.valueKind {
      case .file: kind = "-f"
      case .folder: kind = "-d"
      case .text: return nil
      }
      guard option.value != nil else { return nil }
      return
        "\n      if [ \"${COMP_WORDS[COMP_CWORD-1]}\" = \(option.name) ]; then COMPREPLY=( $(compgen \(kind) -- \"$current\") ); return; fi"
    }.joined()
  }

  /// An option's names as `_arguments` takes them, with what its value is where it has one.
  private static func optionSpecs(_ option: CommandOption) -> [String] {
    guard let value = option.value else { return option.names }
    let action: String
    switch option.valueKind {
    case .file: action = "_files"
    case .folder: action = "_files -/"
    case .text: action = " "
    }
    let message = value.lowercased().replacing("|", with: " or ")
    return option.names.map { "\($0):\(message):\(action)" }
  }
}

extension String {
  /// Safe inside single quotes in a shell script.
  fileprivate func replacingQuote() -> String {
    split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''")
  }
}
