import DocumentBookmarks
import FoundationEssentials

/// The store file's JSON (docs/format.md, "Store files"): an envelope with a format name, a
/// schema version and the name its journal repeats, and the records.
///
/// Evolution rules: members this version does not know, of the envelope and of each record,
/// are written back unchanged; a record this version cannot decode is kept verbatim, after
/// the readable ones, unless a readable record has the same key; a status it cannot read is
/// `unknown`; a file of a newer schema version is refused, for reading and for writing.
enum StoreFormat<Key: Hashable & Sendable & Codable, Metadata: Sendable & Codable & Equatable> {
  typealias Contents = StoreContents<Key, Metadata>

  static var formatName: String { "docbm-store" }
  /// 2: the file has a journal beside it (``StoreJournal``), named by its `journal` member.
  /// Version 1 files (no journal) are read, and written as version 2 at their first change.
  static var schemaVersion: Int { 2 }

  /// Why bytes are not a readable store.
  enum Problem: Error {
    case corrupt(String)
    case notAStore(String)
    case newerVersion(Int)
  }

  /// A record as read: decoded, or (when this version cannot) kept as it was.
  private struct Entry: Decodable {
    let record: StoreRecord<Key, Metadata>?
    let raw: JSONValue?
    let key: Key?

    private enum KeyOnly: String, CodingKey { case key }

    init(from decoder: any Decoder) throws {
      // A record this version cannot read is kept as it was, with its key when that reads.
      if let record = try? StoreRecord<Key, Metadata>(from: decoder) {
        self.record = record
        raw = nil
        key = record.key
      } else {
        record = nil
        raw = try JSONValue(from: decoder)
        key = try? decoder.container(keyedBy: KeyOnly.self).decode(Key.self, forKey: .key)  // as above
      }
    }
  }

  /// The envelope's members this version writes.
  fileprivate static var knownMembers: Set<String> { ["format", "schemaVersion", "records", "journal"] }

  /// The records could not be read (the envelope could).
  private struct RecordsUnreadable: Error {
    let underlying: any Error
  }

  /// The whole file in one pass: the format and version first, the records only when this
  /// version reads them.
  private struct Envelope: Decodable {
    let format: String?
    let version: Int?
    let records: [Entry]?
    let journal: String?
    let members: [String: JSONValue]

    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: AnyCodingKey.self)
      // A missing or mistyped format or version is no store of this format: told below.
      format = try? container.decode(String.self, forKey: AnyCodingKey("format"))
      version = try? container.decode(Int.self, forKey: AnyCodingKey("schemaVersion"))  // as above
      guard format == formatName, let version, (1...schemaVersion).contains(version) else {
        records = nil
        journal = nil
        members = [:]
        return
      }
      // Without a readable journal name, no journal is replayed: the records stand as saved.
      journal = version >= 2 ? try? container.decode(String.self, forKey: AnyCodingKey("journal")) : nil
      do {
        records = try container.decode([Entry].self, forKey: AnyCodingKey("records"))
      } catch {
        throw RecordsUnreadable(underlying: error)
      }
      var members: [String: JSONValue] = [:]
      for name in container.allKeys where !StoreFormat.knownMembers.contains(name.stringValue) {
        members[name.stringValue] = try container.decode(JSONValue.self, forKey: name)
      }
      self.members = members
    }
  }

  /// Decodes a store file's bytes.
  static func decode(_ bytes: [UInt8]) -> Result<Contents, Problem> {
    if bytes.isEmpty { return .failure(.corrupt("the file is empty")) }
    let data = Data(bytes)
    let envelope: Envelope
    do {
      envelope = try JSONDecoder().decode(Envelope.self, from: data)
    } catch let error as RecordsUnreadable {
      return .failure(.corrupt("its records cannot be read: \(error.underlying)"))
    } catch {
      // Not JSON at all, or not an object: a store that was damaged, or something else?
      if (try? JSONDecoder().decode(JSONValue.self, from: data)) != nil {
        return .failure(.notAStore("JSON, but not an object with a docbm-store format"))
      }
      return .failure(.corrupt("not valid JSON"))
    }
    guard envelope.format == formatName else {
      return .failure(
        .notAStore("its format is \(envelope.format.map { "\"\($0)\"" } ?? "missing"), not \"\(formatName)\"")
      )
    }
    guard let version = envelope.version else { return .failure(.corrupt("no schemaVersion")) }
    if version > schemaVersion { return .failure(.newerVersion(version)) }
    guard let entries = envelope.records else { return .failure(.corrupt("schemaVersion \(version)")) }
    var contents = Contents()
    var records: [StoreRecord<Key, Metadata>] = []
    records.reserveCapacity(entries.count)
    var keys = Set<Key>()
    for entry in entries {
      if let record = entry.record, keys.insert(record.key).inserted {
        records.append(record)
      }
    }
    contents.records = StoreRecordList(records)
    // An unreadable record gives way to a readable one with the same key.
    for entry in entries {
      guard let raw = entry.raw else { continue }
      if let key = entry.key, keys.contains(key) { continue }
      contents.unreadable.append(raw)
    }
    contents.unknownMembers = envelope.members
    contents.snapshotID = envelope.journal
    return .success(contents)
  }

  /// Encodes contents as a store's JSON: sorted members, pretty-printed, so that a person
  /// can read it and a diff shows what changed.
  static func encode(_ contents: Contents) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    var members: [(name: String, value: [UInt8])] = []
    for (name, value) in contents.unknownMembers where !knownMembers.contains(name) {
      members.append((name, indented(Array(try encoder.encode(value)), by: 2)))
    }
    members.append(("format", Array(try encoder.encode(formatName))))
    members.append(("schemaVersion", Array(String(schemaVersion).utf8)))
    if let journal = contents.snapshotID { members.append(("journal", Array(try encoder.encode(journal)))) }
    var records: [UInt8] = []
    let count = contents.records.count + contents.unreadable.count
    if count == 0 {
      records = Array("[]".utf8)
    } else {
      records.reserveCapacity(count * 640)
      records += Array("[\n".utf8)
      var first = true
      func append(_ entry: [UInt8]) {
        if !first { records += Array(",\n".utf8) }
        first = false
        records += entry
      }
      /// A value as an element of the records list: four spaces in, at every line.
      func entry(_ value: some Encodable) throws -> [UInt8] {
        Array("    ".utf8) + indented(Array(try encoder.encode(value)), by: 4)
      }
      for record in contents.records {
        append(try entry(record))
      }
      for raw in contents.unreadable { append(try entry(raw)) }
      records += Array("\n  ]".utf8)
    }
    members.append(("records", records))
    members.sort { $0.name < $1.name }
    var output: [UInt8] = Array("{\n".utf8)
    output.reserveCapacity(records.count + 256)
    for (index, member) in members.enumerated() {
      output += Array("  ".utf8) + Array(try encoder.encode(member.name)) + Array(" : ".utf8) + member.value
      output += Array((index == members.count - 1 ? "\n" : ",\n").utf8)
    }
    output += Array("}\n".utf8)
    return Data(output)
  }

  /// `json` with `spaces` more spaces after each line break: a value put at that depth.
  private static func indented(_ json: [UInt8], by spaces: Int) -> [UInt8] {
    var result: [UInt8] = []
    result.reserveCapacity(json.count + json.count / 8)
    let newline = UInt8(ascii: "\n")
    for byte in json {
      result.append(byte)
      if byte == newline { result += repeatElement(UInt8(ascii: " "), count: spaces) }
    }
    return result
  }
}
