// The save of an app that replaces a document with a copy made by FileManager.copyItem:
// copy the document aside, remove it, move the copy into its place.
import Foundation

let document = URL(fileURLWithPath: CommandLine.arguments[1])
let aside = URL(fileURLWithPath: CommandLine.arguments[2])
try FileManager.default.copyItem(at: document, to: aside)
try Data("{\"saved\": true}\n".utf8).write(to: aside)
try FileManager.default.removeItem(at: document)
try FileManager.default.moveItem(at: aside, to: document)
