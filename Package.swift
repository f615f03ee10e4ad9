// swift-tools-version: 6.0
// docbm: document-scoped bookmarks for Swift on Linux.

import PackageDescription

let strictSettings: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("InternalImportsByDefault"),
  .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
  name: "docbm",
  products: [
    .library(name: "DocumentBookmarks", targets: ["DocumentBookmarks"]),
    .library(name: "DocumentBookmarksTesting", targets: ["DocumentBookmarksTesting"]),
    .library(name: "DocumentBookmarkStore", targets: ["DocumentBookmarkStore"]),
    .library(name: "DocumentWatching", targets: ["DocumentWatching"]),
    .executable(name: "docbm", targets: ["docbm"]),
    // libdocbm for C and other languages; `make install` installs it as libdocbm.so.0.
    .library(name: "DocbmC", type: .dynamic, targets: ["DocbmC"]),
  ],
  targets: [
    // Layer 1: C. Only these targets touch C headers.
    .systemLibrary(
      name: "CLibAttr",
      pkgConfig: "libattr",
      providers: [.apt(["libattr1-dev"])]
    ),
    .systemLibrary(
      name: "CCrypto",
      pkgConfig: "libcrypto",
      providers: [.apt(["libssl-dev"])]
    ),
    .systemLibrary(
      name: "CSodium",
      pkgConfig: "libsodium",
      providers: [.apt(["libsodium-dev"])]
    ),
    .systemLibrary(
      name: "CSQLite",
      pkgConfig: "sqlite3",
      providers: [.apt(["libsqlite3-dev"])]
    ),
    .target(
      name: "CDocbmShims",
      dependencies: ["CLibAttr"],
      cSettings: [.define("_GNU_SOURCE")]
    ),

    // The fence: a module that imports Glibc, Foundation or a C module does not build.
    .executableTarget(name: "LayeringCheckTool", path: "Plugins/LayeringCheckTool"),
    .plugin(name: "LayeringCheck", capability: .buildTool(), dependencies: ["LayeringCheckTool"]),

    // Layer 2: the system module, the only Swift code that imports Glibc or a C module.
    .target(
      name: "DocbmSystem",
      dependencies: ["CDocbmShims", "CSodium", "CCrypto", "CSQLite"],
      swiftSettings: strictSettings
    ),

    // Layer 3: the library (Anchor, Bookmark, Saving, Checking, ...).
    .target(
      name: "DocumentBookmarks",
      dependencies: ["DocbmSystem"],
      swiftSettings: strictSettings,
      plugins: ["LayeringCheck"]
    ),

    // Optional capabilities, each its own module and product over the library.
    .target(
      name: "DocumentBookmarkStore",
      dependencies: ["DocumentBookmarks", "DocbmSystem"],
      swiftSettings: strictSettings,
      plugins: ["LayeringCheck"]
    ),

    // Layer 4: the testing product, the CLI library and its executable, the benchmarks.
    .target(
      name: "DocumentBookmarksTesting",
      dependencies: ["DocumentBookmarks", "DocbmSystem"],
      swiftSettings: strictSettings,
      plugins: ["LayeringCheck"]
    ),
    // Watching documents: an optional capability, its own module over DocumentBookmarks.
    .target(
      name: "DocumentWatching",
      dependencies: ["DocumentBookmarks", "DocbmSystem"],
      swiftSettings: strictSettings,
      plugins: ["LayeringCheck"]
    ),
    .target(
      name: "DocbmCLI",
      dependencies: ["DocumentBookmarks", "DocumentBookmarkStore", "DocumentWatching", "DocbmSystem"],
      swiftSettings: strictSettings,
      plugins: ["LayeringCheck"]
    ),
    // libdocbm: the C ABI (include/docbm.h), exporting only the docbm_* functions.
    .target(
      name: "DocbmC",
      dependencies: ["DocumentBookmarks", "DocumentBookmarkStore", "DocumentWatching", "DocbmSystem"],
      exclude: ["include", "docbm.map", "docbm.pc.in"],
      swiftSettings: strictSettings,
      linkerSettings: [
        .unsafeFlags([
          "-Xlinker", "-soname=libdocbm.so.0",
          "-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/DocbmC/docbm.map",
        ])
      ],
      plugins: ["LayeringCheck"]
    ),
    .executableTarget(
      name: "docbm",
      dependencies: ["DocbmCLI"],
      swiftSettings: strictSettings,
      plugins: ["LayeringCheck"]
    ),
    .executableTarget(
      name: "DocbmBenchmarks",
      dependencies: [
        "DocbmSystem", "DocumentBookmarks", "DocumentBookmarkStore", "DocumentWatching", "CDocbmShims",
      ],
      path: "Benchmarks/DocbmBenchmarks",
      swiftSettings: strictSettings
    ),

    .target(
      name: "DocbmTestSupport",
      dependencies: ["DocumentBookmarks"],
      path: "Tests/TestSupport",
      swiftSettings: strictSettings
    ),
    // Samples: built by CI, run by their READMEs.
    .executableTarget(
      name: "folder-list",
      dependencies: ["DocumentBookmarks", "DocumentBookmarkStore"],
      path: "Samples/folder-list",
      exclude: ["README.md"],
      swiftSettings: strictSettings
    ),
    .executableTarget(
      name: "moodboard",
      dependencies: ["DocumentBookmarks"],
      path: "Samples/moodboard",
      exclude: ["README.md"],
      swiftSettings: strictSettings
    ),
    .executableTarget(
      name: "SaveLintSample",
      dependencies: ["DocumentBookmarks"],
      path: "Samples/save-lint/Sources",
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "SaveLintSampleTests",
      dependencies: ["SaveLintSample", "DocumentBookmarksTesting"],
      path: "Samples/save-lint/Tests",
      swiftSettings: strictSettings
    ),

    .testTarget(
      name: "DocbmSystemTests",
      dependencies: ["DocbmSystem", "DocbmTestSupport"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "DocumentBookmarksTests",
      dependencies: [
        "DocumentBookmarks", "DocumentBookmarksTesting", "DocumentWatching", "DocbmTestSupport", "DocbmSystem",
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "DocumentBookmarksTestingTests",
      dependencies: ["DocumentBookmarksTesting", "DocumentBookmarks", "DocbmTestSupport"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "DocumentBookmarkStoreTests",
      dependencies: [
        "DocumentBookmarkStore", "DocumentBookmarks", "DocumentBookmarksTesting", "DocbmTestSupport",
        "DocbmSystem",
      ],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "DocumentWatchingTests",
      dependencies: ["DocumentWatching", "DocumentBookmarks", "DocbmTestSupport", "DocbmSystem"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "DocbmCLITests",
      dependencies: ["DocbmCLI", "DocumentBookmarks", "DocbmTestSupport", "DocbmSystem"],
      swiftSettings: strictSettings
    ),
  ],
  swiftLanguageModes: [.v6]
)
