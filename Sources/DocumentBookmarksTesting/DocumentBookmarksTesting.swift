/// The namespace of the testing product. The save-safety lint and its reporters are added
/// here; the product already builds so that app test targets can depend on it.
public enum DocumentBookmarksTesting {
  /// The library version this testing product belongs to.
  public static let version = "0.1.0"
}
