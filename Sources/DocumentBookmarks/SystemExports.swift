// The system module's three public types are part of this library's API, so an app that
// imports DocumentBookmarks can name them; nothing else of the system module is re-exported:
// a module that uses more of it imports it and declares it as a dependency.
@_exported public import struct DocbmSystem.FilePath
@_exported public import struct DocbmSystem.KernelFileHandle
@_exported public import struct DocbmSystem.Timestamp
