import DocbmSystem
import DocumentBookmarks

extension DocbmError {
  /// The error as the command line says it: `code: message [call: errno]`, without the save
  /// step, which names the library's internals (``description`` keeps it, for logs).
  var commandLineText: String {
    var text = "\(code.rawValue): \(message)"
    if let systemCall, let errno { text += " [\(systemCall): \(Errno(rawValue: errno))]" }
    return text
  }
}

/// `error` as the command line says it: a docbm error as ``DocbmError/commandLineText``,
/// any other as it describes itself.
func commandLineText(_ error: any Error) -> String {
  (error as? DocbmError)?.commandLineText ?? "\(error)"
}
