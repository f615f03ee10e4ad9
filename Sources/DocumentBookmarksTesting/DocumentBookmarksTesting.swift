/// Helpers for app test suites; the save-safety lint grows here.
public enum DocumentBookmarksTesting {}
