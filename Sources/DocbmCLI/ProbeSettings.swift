/// What `docbm probe` was asked to do.
struct ProbeSettings: Equatable {
  /// The program and its arguments, `{}` standing for the document's path.
  var command: [[UInt8]]
  /// `--through-link`: hand the program a symbolic link to the document.
  var throughLink = false
  /// `--with-hard-link`: give the document a second name (`--without-hard-link`, the
  /// default, is accepted too).
  var hardLink = false
  /// `--in DIR`: where to make the scratch folder (default: the current folder).
  var location: [UInt8]?
  /// `--strict`: files left beside the document count as a problem too.
  var strict = false
  /// `--json`.
  var json = false
}
