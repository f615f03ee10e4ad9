/// The namespace of the testing product: the save-safety lint (`expectSafeSave`,
/// `XCTAssertSafeSave`), the `.keepsDocumentKeys` trait and fault injection (`withSaveFault`).
public enum DocumentBookmarksTesting {
  /// The library version this testing product belongs to.
  public static let version = "0.1.0"
}
