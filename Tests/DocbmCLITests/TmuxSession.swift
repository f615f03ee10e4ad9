import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Glibc

/// A real terminal for a test: a detached tmux session running one shell command, whose
/// screen the test reads. Made with `start`; `stop` (or the end of the test) ends it.
final class TmuxSession {
  private let socket: String
  private let name: String
  private var server: Int32?
  private var pane: Int32?

  /// Whether tmux (and python3, to start it without the test's descriptors) are here.
  static var isAvailable: Bool {
    ["/usr/bin/tmux", "/usr/bin/python3"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
  }

  /// Starts `command` in a 150×40 terminal; the socket lives in `folder`.
  init(_ command: String, in folder: FilePath) {
    socket = folder.appending("tmux.socket").description
    name = "docbm-\(getpid())"
    // The tmux server lives on after its client and keeps every descriptor it inherits;
    // tests run in parallel, so it must inherit none of their pipes: Python's subprocess
    // closes every descriptor above 2 in the child.
    run(
      "/usr/bin/python3",
      [
        "-c",
        "import subprocess, sys; subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True)",
        "/usr/bin/tmux", "-S", socket, "new-session", "-d", "-s", name, "-x", "150", "-y", "40", command,
      ])
    server = Int32(
      tmux(["display-message", "-p", "#{pid}"]).output.trimmingCharacters(in: .whitespacesAndNewlines))
    pane = Int32(
      tmux(["display-message", "-p", "-t", name, "#{pane_pid}"]).output.trimmingCharacters(
        in: .whitespacesAndNewlines))
  }

  @discardableResult
  func tmux(_ arguments: [String]) -> ProcessResult {
    run("/usr/bin/tmux", ["-S", socket] + arguments)
  }

  /// Types `keys` (tmux key names, such as `Enter` or `Tab`, are keys).
  func send(_ keys: String...) {
    tmux(["send-keys", "-t", name] + keys)
  }

  /// The screen, with `history` lines scrolled off above it; with `joined`, each line the
  /// terminal wrapped is given whole.
  func screen(history: Int = 0, joined: Bool = false) -> String {
    tmux(["capture-pane", "-p", "-t", name, "-S", String(-history)] + (joined ? ["-J"] : [])).output
  }

  /// The screen (with `history` lines above it; wrapped lines whole with `joined`) once it
  /// shows `text`, or `nil` when it has not within `seconds`.
  func screen(showing text: String, history: Int = 0, joined: Bool = false, within seconds: Double = 60)
    -> String?
  {
    var screen = ""
    guard
      waitUntil(
        within: seconds,
        {
          screen = self.screen(history: history, joined: joined)
          return screen.contains(text)
        })
    else { return nil }
    return screen
  }

  /// Ends the session, its server and the command in its pane (each stopped by its process
  /// ID: `kill-server` is not always obeyed before the test ends, and a command that does
  /// not read its terminal outlives a server killed under it).
  func stop() {
    tmux(["kill-server"])
    for process in [server, pane] { if let process, process > 1 { kill(process, SIGKILL) } }
    server = nil
    pane = nil
  }

  deinit { stop() }
}
