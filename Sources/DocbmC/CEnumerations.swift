import DocumentBookmarkStore
import DocumentBookmarks
import DocumentWatching

// The values of docbm.h's enumerations. They are part of the C ABI: a value, once
// published, never changes meaning. Each switch is exhaustive, so a case added to the Swift
// enumeration does not build until it has its C value here and in the header.

extension DocbmError.Code {
  /// The `docbm_code` value.
  var cValue: UInt32 {
    switch self {
    case .keyMissing: 1
    case .keyMismatch: 2
    case .keyMalformed: 3
    case .tampered: 4
    case .corrupt: 5
    case .unsupportedVersion: 6
    case .missing: 7
    case .volumeUnavailable: 8
    case .notFound: 9
    case .pathTooLong: 10
    case .unsupportedFileType: 11
    case .unsupportedFilesystem: 12
    case .readOnlyFilesystem: 13
    case .immutable: 14
    case .permissionDenied: 15
    case .noSpace: 16
    case .ioError: 17
    case .systemFailure: 18
    case .writerFailed: 19
    case .nothingWritten: 20
    case .hardLinked: 21
    case .attributeCopyFailed: 22
    case .escrowUntrusted: 23
    case .escrowDamaged: 24
    case .documentUnproven: 25
    case .ownerChanged: 26
    case .documentExists: 27
    case .portalRefusesAttributes: 28
    case .portalHostPathUnknown: 29
    case .outsideSandbox: 30
    case .notFoundNearby: 31
    case .readOnlyDocument: 32
    }
  }

  /// `DOCBM_INVALID_ARGUMENT`: libdocbm's own code, for a NULL or empty argument.
  static let invalidArgumentCValue: UInt32 = 1000
}

extension Recommendation {
  /// The `docbm_recommendation` value.
  var cValue: UInt32 {
    switch self {
    case .retryLater: 1
    case .pickAgain: 2
    case .forget: 3
    case .repairKey: 4
    case .useAnotherLocation: 5
    case .saveElsewhere: 6
    case .confirmSave: 7
    case .clearFlags: 8
    case .freeSpace: 9
    case .searchWider: 10
    }
  }
}

extension SearchBudget.Reach {
  /// The `docbm_search_reach` value.
  var cValue: UInt32 {
    switch self {
    case .nearby: 1
    case .filesystem: 2
    }
  }

  /// The reach whose `docbm_search_reach` value is `value`, if one has it.
  init?(cValue value: UInt32) {
    guard let reach = Self.allCases.first(where: { $0.cValue == value }) else { return nil }
    self = reach
  }
}

extension StaleReason {
  /// The reason's `docbm_stale_reason` bit.
  var cBit: UInt32 {
    switch self {
    case .targetMoved: 1 << 0
    case .documentMoved: 1 << 1
    case .relativePathChanged: 1 << 2
    case .identityChanged: 1 << 3
    case .ambiguous: 1 << 4
    case .inTrash: 1 << 5
    case .relinked: 1 << 6
    }
  }
}

extension CheckVerdict {
  /// The `docbm_verdict` value.
  var cValue: UInt32 {
    switch self {
    case .ok: 1
    case .quotesBookmarks: 2
    case .noBookmarks: 3
    case .keyLost: 4
    case .keyMismatch: 5
    case .mixed: 6
    case .unsupportedFilesystem: 7
    case .unreadable: 8
    case .incomplete: 9
    }
  }
}

extension DocumentRepairer.Report.Action {
  /// The `docbm_repair_action` value.
  var cValue: UInt32 {
    switch self {
    case .restored: 1
    case .nothingToDo: 2
    case .refused: 3
    }
  }
}

extension SaveProbeReport.Verdict {
  /// The `docbm_lint_verdict` value.
  var cValue: UInt32 {
    switch self {
    case .kept: 1
    case .keptLeavingFiles: 2
    case .lost: 3
    case .notSaved: 4
    }
  }
}

/// The names of an enumeration's cases as static NUL-terminated strings, by C value.
///
/// Names are made once per enumeration and kept for the life of the process, since the
/// header promises callers a static string.
struct CNames: Sendable {
  private let names: [UInt32: StaticCString]

  init<Value: RawRepresentable & CaseIterable>(_ type: Value.Type, cValue: (Value) -> UInt32)
  where Value.RawValue == String {
    var names: [UInt32: StaticCString] = [:]
    for value in type.allCases {
      names[cValue(value)] = StaticCString(value.rawValue)
    }
    self.names = names
  }

  /// Names given by C value, for an enumeration whose cases carry values (and so have no
  /// raw value of their own).
  init(_ names: [UInt32: String]) {
    self.names = names.mapValues(StaticCString.init)
  }

  /// These names and `name` for `value`.
  func adding(_ value: UInt32, _ name: String) -> CNames {
    var names = self.names
    names[value] = StaticCString(name)
    return CNames(names: names)
  }

  private init(names: [UInt32: StaticCString]) {
    self.names = names
  }

  /// The name for `value`, or `nil` when no case has it.
  subscript(value: UInt32) -> UnsafePointer<CChar>? { names[value]?.pointer }

  /// `docbm_code`: Swift's codes and libdocbm's own `invalidArgument`.
  static let codes = StoreFailureCode.allCases.reduce(
    CNames(DocbmError.Code.self, cValue: \.cValue)
      .adding(DocbmError.Code.invalidArgumentCValue, "invalidArgument")
  ) { $0.adding($1.cValue, $1.rawValue) }
  static let recommendations = CNames(Recommendation.self, cValue: \.cValue)
  static let staleReasons = CNames(StaleReason.self, cValue: \.cBit)
  static let verdicts = CNames(CheckVerdict.self, cValue: \.cValue)
  static let repairActions = CNames(DocumentRepairer.Report.Action.self, cValue: \.cValue)
  static let lintVerdicts = CNames(SaveProbeReport.Verdict.self, cValue: \.cValue)
  static let searchReaches = CNames(SearchBudget.Reach.self, cValue: \.cValue)
  static let saveSteps = CNames(SaveStep.self, cValue: \.cValue)
  /// `docbm_relink_outcome`, as ``Relink/Outcome``'s cases are named.
  static let relinkOutcomes = CNames([
    1: "relinked", 2: "notUnderSource", 3: "nothingThere", 4: "notTheTarget", 5: "failed",
  ])
  /// `docbm_reanchor_outcome`, as ``ReanchoredBookmark/Outcome``'s cases are named.
  static let reanchorOutcomes = CNames([1: "reanchored", 2: "ambiguous", 3: "failed"])
  /// `docbm_event_kind`, as ``DocumentEvent/Kind``'s cases are named.
  static let eventKinds = CNames(DocumentEvent.Kind.self, cValue: \.cValue)
  /// `docbm_record_state`, as ``RecordStatus``'s cases are named.
  static let recordStates = CNames([0: "unknown", 1: "available", 2: "unavailable"])
}

extension SaveStep {
  /// The `docbm_save_step` value.
  var cValue: UInt32 {
    switch self {
    case .inspectDocument: 1
    case .prepareTemporary: 2
    case .write: 3
    case .openWritten: 4
    case .changeOwner: 5
    case .copyAttributes: 6
    case .changeMode: 7
    case .copyACL: 8
    case .syncFile: 9
    case .swap: 10
    case .syncFolder: 11
    }
  }

  /// The step whose `docbm_save_step` value is `value`, if one has it.
  init?(cValue value: UInt32) {
    guard let step = Self.allCases.first(where: { $0.cValue == value }) else { return nil }
    self = step
  }
}

extension CopyKey {
  /// The key a `docbm_copy_key` value names, or `nil` when the header lists no such value.
  init?(cValue value: UInt32) {
    switch value {
    case 0: self = .carry
    case 1: self = .strip
    default: return nil
    }
  }
}

extension ReplaceOptions {
  /// The `docbm_allowance` values.
  private static let splitHardLinksCValue: UInt32 = 1
  private static let ownerChangeCValue: UInt32 = 2
  private static let readOnlyCValue: UInt32 = 4

  /// The options a `docbm_allowance` combination allows, or `nil` when it holds a value the
  /// header does not list.
  init?(cAllowances value: UInt32) {
    let known = Self.splitHardLinksCValue | Self.ownerChangeCValue | Self.readOnlyCValue
    guard value & ~known == 0 else { return nil }
    self.init(
      hardLinks: value & Self.splitHardLinksCValue != 0 ? .split : .refuse,
      ownerChange: value & Self.ownerChangeCValue != 0 ? .allow : .refuse,
      readOnlyDocument: value & Self.readOnlyCValue != 0 ? .allow : .refuse)
  }
}

/// libdocbm's numbers for a store's own failures (``StoreFailureCode``), after
/// `invalidArgument`.
extension StoreFailureCode {
  var cValue: UInt32 {
    switch self {
    case .noSuchKey: 1001
    case .storeNewerVersion: 1002
    case .notAStore: 1003
    case .storeUntrusted: 1004
    case .storeCorrupt: 1005
    case .storeKeyLost: 1006
    }
  }
}
