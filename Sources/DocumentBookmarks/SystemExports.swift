// The system module's public types (`FilePath`, `Timestamp`, `KernelFileHandle`) are part
// of this library's API, so an app that imports DocumentBookmarks can name them.
@_exported public import DocbmSystem
