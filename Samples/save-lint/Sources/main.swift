import Foundation

// Saves a notebook both ways to a path given on the command line, for trying by hand.
guard CommandLine.arguments.count == 3, ["wrong", "right"].contains(CommandLine.arguments[1]) else {
  print("usage: save-lint wrong|right NOTEBOOK")
  exit(64)
}
let url = URL(fileURLWithPath: CommandLine.arguments[2])
let notebook = Notebook(text: "Saved by save-lint")
do {
  if CommandLine.arguments[1] == "wrong" {
    try notebook.saveWrong(to: url)
  } else {
    try notebook.saveRight(to: url)
  }
  print("saved \(url.path)")
} catch {
  print("not saved: \(error)")
  exit(1)
}
