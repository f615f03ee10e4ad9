import DocumentBookmarkStore
import DocumentBookmarks
import FoundationEssentials

/// A `docbm_store_record`: one record of a store as it was when read, with its strings in
/// C form.
final class StoreRecordHandle: CHandle {
  let record: StoreRecord<JSONValue, JSONValue>
  /// The record's key: the string itself for a string key (the keys libdocbm makes), the
  /// key's JSON text for a key another app's store made of another type.
  let key: CStringCopy
  let path: CStringCopy
  /// The record's metadata as JSON text, its object keys sorted.
  let metadata: CStringCopy
  /// ``StoreRecord/isInTrash`` and ``StoreRecord/isGone``, decided once.
  let isInTrash: Bool
  let isGone: Bool

  /// The record, its Trash test made with `trash` (the Trash folders of the environment,
  /// read once for a whole list).
  init(_ record: StoreRecord<JSONValue, JSONValue>, trash: TrashFolders = TrashFolders()) {
    self.record = record
    key = CStringCopy(record.key.keyText)
    path = CStringCopy(record.lastKnownPath.bytes)
    metadata = CStringCopy(record.metadata.jsonText)
    isInTrash = trash.contains(record.lastKnownPath)
    isGone = StoreRecord<JSONValue, JSONValue>.isGone(status: record.status, inTrash: isInTrash)
  }

  deinit {
    key.release()
    path.release()
    metadata.release()
  }

  /// `docbm_record_state`: 0 not resolved yet, 1 available, 2 unavailable.
  var stateCValue: UInt32 {
    switch record.status {
    case .unknown: 0
    case .available: 1
    case .unavailable: 2
    }
  }
}

/// A `docbm_store_records`: the records of a store in its order, as they were when read.
final class StoreRecordsHandle: CHandle {
  let records: [StoreRecordHandle]

  init(_ records: [StoreRecord<JSONValue, JSONValue>]) {
    let trash = TrashFolders()
    self.records = records.map { StoreRecordHandle($0, trash: trash) }
  }
}
