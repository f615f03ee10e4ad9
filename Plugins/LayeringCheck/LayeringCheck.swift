import PackagePlugin

/// Fails the build of a module whose sources import Glibc, Foundation (which re-exports
/// Glibc on Linux) or one of the C modules: only DocbmSystem may (docs/design.md,
/// "Modules"); or import a module of this package that the target does not declare as a
/// dependency of its own (reaching it through another module's dependency is not enough).
/// It runs the checker over the module's Swift files before they compile; the
/// checker's output, an empty Swift file, is compiled into the module, so the check runs
/// whenever one of the files changes.
@main
struct LayeringCheck: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
    guard let module = target as? SourceModuleTarget else { return [] }
    let sources = module.sourceFiles(withSuffix: "swift").map(\.url)
    let output = context.pluginWorkDirectoryURL.appending(path: "LayeringChecked.swift")
    let declared = target.dependencies.compactMap { dependency -> String? in
      if case .target(let dependency) = dependency { return dependency.name }
      return nil
    }
    let packageModules = context.package.targets.map(\.name)
    return [
      .buildCommand(
        displayName: "Checking that \(target.name) imports no C module",
        executable: try context.tool(named: "LayeringCheckTool").url,
        arguments: [
          "--declared", declared.joined(separator: ","), "--package-modules",
          packageModules.joined(separator: ","),
          target.name, output.path,
        ] + sources.map(\.path),
        inputFiles: sources,
        outputFiles: [output])
    ]
  }
}
