import DocbmTestSupport
import DocumentBookmarks
import Foundation
import Testing

/// The Makefile's install targets, read with `make -n` (nothing is built or installed).
@Suite("Makefile install targets")
struct MakefileTests {
  let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
  let make = "/usr/bin/make"

  /// The commands `make -n` would run for `target`, under a prefix and a staging folder,
  /// with `folders` (`LIBDIR=…`) given too.
  func dryRun(_ target: String, _ folders: [String] = []) -> ProcessResult {
    run(make, ["-s", "-C", root, "-n", target, "PREFIX=/opt/docbm-prefix", "DESTDIR=/staging"] + folders)
  }

  /// The files the commands of a dry run of `install` write.
  func written(by install: ProcessResult) -> Set<String> {
    var written = Set<String>()
    for line in install.output.split(separator: "\n") {
      let words = line.split(separator: " ").map(String.init)
      if words.first == "install" || words.first == "ln", let last = words.last { written.insert(last) }
      if let arrow = words.firstIndex(of: ">"), arrow + 1 < words.count { written.insert(words[arrow + 1]) }
    }
    return written
  }

  @Test("install needs only the build packages, installs none, and uninstall removes exactly what it wrote")
  func installAndUninstall() throws {
    guard FileManager.default.isExecutableFile(atPath: make) else {
      print("skipped: make is not installed")
      return
    }
    let install = dryRun("install")
    try #require(install.status == 0, "\(install.error)")
    #expect(!install.output.contains("apt-get install"), "make install would install packages")
    #expect(install.output.contains("make setup-build"), "a missing package must name make setup-build")
    // It checks for the toolchain's four libraries alone, none of the test packages.
    #expect(install.output.contains("for p in libattr1-dev libsodium-dev libssl-dev libsqlite3-dev; do"))
    let written = written(by: install)
    let prefix = "/staging/opt/docbm-prefix/"
    #expect(
      written
        == Set(
          [
            "bin/docbm", "share/man/man1/docbm.1", "share/bash-completion/completions/docbm",
            "share/zsh/site-functions/_docbm", "share/systemd/user/docbm-watch@.service",
            "lib/libdocbm.so.\(DocbmRelease.version)", "lib/libdocbm.so.0", "lib/libdocbm.so",
            "include/docbm.h", "lib/pkgconfig/docbm.pc",
          ].map { prefix + $0 }))
    // pkg-config's file names where the library is used from, not where it is staged.
    #expect(install.output.contains("s|@LIBDIR@|/opt/docbm-prefix/lib|"))
    #expect(install.output.contains("s|@INCLUDEDIR@|/opt/docbm-prefix/include|"))

    let uninstall = dryRun("uninstall")
    try #require(uninstall.status == 0, "\(uninstall.error)")
    let removed = uninstall.output.split(separator: "\n").flatMap { line -> [String] in
      let words = line.split(separator: " ").map(String.init)
      return words.starts(with: ["rm", "-f"]) ? Array(words.dropFirst(2)) : []
    }
    #expect(Set(removed) == written)
    #expect(!uninstall.output.contains("rm -r"), "uninstall removes files, never folders")
  }

  @Test("GNU's folder variables place each file, as a distribution's multiarch layout needs")
  func folderVariables() throws {
    guard FileManager.default.isExecutableFile(atPath: make) else {
      print("skipped: make is not installed")
      return
    }
    let folders = [
      "BINDIR=/usr/bin", "LIBDIR=/usr/lib/x86_64-linux-gnu", "INCLUDEDIR=/usr/include", "DATADIR=/usr/share",
      "MANDIR=/usr/share/man",
    ]
    let install = dryRun("install", folders)
    try #require(install.status == 0, "\(install.error)")
    let library = "/usr/lib/x86_64-linux-gnu"
    #expect(
      written(by: install)
        == Set(
          [
            "/usr/bin/docbm", "/usr/share/man/man1/docbm.1", "/usr/share/bash-completion/completions/docbm",
            "/usr/share/zsh/site-functions/_docbm", "/usr/share/systemd/user/docbm-watch@.service",
            "\(library)/libdocbm.so.\(DocbmRelease.version)", "\(library)/libdocbm.so.0",
            "\(library)/libdocbm.so",
            "/usr/include/docbm.h", "\(library)/pkgconfig/docbm.pc",
          ].map { "/staging" + $0 }))
    #expect(
      install.output.contains("s|@LIBDIR@|\(library)|") && install.output.contains("s|@bindir@|/usr/bin|"))
    // The pkg-config file gives a C build the folders it is made with (outside the system's
    // own, which pkg-config leaves out of the flags).
    let scratch = try Scratch()
    let pc = scratch.path("docbm.pc")
    let made = run(
      "/bin/sh",
      [
        "-c",
        "sed -e 's|@LIBDIR@|/opt/docbm/lib64|' -e 's|@INCLUDEDIR@|/opt/docbm/include|' -e 's|@VERSION@|1|' '\(root)/Sources/DocbmC/docbm.pc.in' > '\(pc)'",
      ])
    try #require(made.status == 0, "\(made.error)")
    if FileManager.default.isExecutableFile(atPath: "/usr/bin/pkg-config") {
      let flags = run("/usr/bin/pkg-config", ["--cflags", "--libs", pc.description])
      #expect(
        flags.output.contains("-I/opt/docbm/include") && flags.output.contains("-L/opt/docbm/lib64 -ldocbm"),
        "\(flags.output)")
    }
    let uninstall = dryRun("uninstall", folders)
    #expect(
      uninstall.output.contains("\(library)/libdocbm.so.0") && uninstall.output.contains("/usr/bin/docbm"))
  }

  @Test("the installed systemd unit runs the installed docbm, and its comments are left as written")
  func installedUnit() throws {
    guard FileManager.default.isExecutableFile(atPath: make) else {
      print("skipped: make is not installed")
      return
    }
    let install = dryRun("install")
    try #require(install.status == 0, "\(install.error)")
    let line = try #require(
      install.output.split(separator: "\n").first {
        $0.hasPrefix("sed ") && $0.contains("docbm-watch@.service")
      },
      "\(install.output)")
    // The recipe's own command, writing into a scratch folder instead of the staging one.
    let scratch = try Scratch()
    try scratch.folder("staging/opt/docbm-prefix/share/systemd/user")
    let command = String(line).replacingOccurrences(
      of: "/staging/", with: scratch.path("staging").description + "/")
    let ran = run("/bin/sh", ["-c", "cd '\(root)' && \(command)"])
    try #require(ran.status == 0, "\(ran.error)")
    let installed = try String(
      contentsOfFile: scratch.path("staging/opt/docbm-prefix/share/systemd/user/docbm-watch@.service")
        .description,
      encoding: .utf8)
    let source = try String(contentsOfFile: root + "/docs/docbm-watch@.service", encoding: .utf8)
    #expect(installed.contains("ExecStart=/opt/docbm-prefix/bin/docbm watch --repair %f\n"), "\(installed)")
    let comments = { (text: String) in text.split(separator: "\n").filter { $0.hasPrefix("#") } }
    #expect(comments(installed) == comments(source))
  }
}
