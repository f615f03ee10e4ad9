/// The namespace of the testing product: the save-safety lint (``expectSafeSave(options:fileID:filePath:line:column:_:)-(_,_,_,_,_,(URL)->Void)``,
/// ``XCTAssertSafeSave(options:file:line:_:)``) and fault injection (``withSaveFault(_:_:)-(_,()->Result)``).
public enum DocumentBookmarksTesting {
  /// The library version this testing product belongs to.
  public static let version = "0.1.0"
}
