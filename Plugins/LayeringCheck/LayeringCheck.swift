import PackagePlugin

/// Fails the build of a module whose sources import Glibc, Foundation (which re-exports
/// Glibc on Linux) or one of the C modules: only DocbmSystem may (docs/design.md,
/// "Modules"). It runs the checker over the module's Swift files before they compile; the
/// checker's output, an empty Swift file, is compiled into the module, so the check runs
/// whenever one of the files changes.
@main
struct LayeringCheck: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
    guard let module = target as? SourceModuleTarget else { return [] }
    let sources = module.sourceFiles(withSuffix: "swift").map(\.url)
    let output = context.pluginWorkDirectoryURL.appending(path: "LayeringChecked.swift")
    return [
      .buildCommand(
        displayName: "Checking that \(target.name) imports no C module",
        executable: try context.tool(named: "LayeringCheckTool").url,
        arguments: [target.name, output.path] + sources.map(\.path),
        inputFiles: sources,
        outputFiles: [output])
    ]
  }
}
