import DocumentBookmarks
import Foundation

/// The store file's JSON (docs/format.md, "Store files"): an envelope with a format name and
/// a schema version, and the records.
///
/// Evolution rules: members this version does not know, of the envelope and of each record,
/// are written back unchanged; a record this version cannot decode is kept verbatim, after
/// the readable ones, unless a readable record has the same key; a status it cannot read is
/// `unknown`; a file of a newer schema version is refused, for reading and for writing.
enum StoreFormat<Key: Hashable & Sendable & Codable, Metadata: Sendable & Codable & Equatable> {
  typealias Contents = StoreContents<Key, Metadata>

  static var formatName: String { "docbm-store" }
  static var schemaVersion: Int { 1 }
  /// The largest store file read: far beyond any real list, small enough to bound memory.
  static var sizeLimit: Int { 256 << 20 }

  /// Why bytes are not a readable store.
  enum Problem: Error {
    case corrupt(String)
    case notAStore(String)
    case newerVersion(Int)
  }

  private struct Header: Decodable {
    let format: String?
    let schemaVersion: Int?
  }

  private struct Entry: Decodable {
    let raw: JSONValue
    let record: StoreRecord<Key, Metadata>?
    let key: Key?

    private enum KeyOnly: String, CodingKey { case key }

    init(from decoder: any Decoder) throws {
      raw = try JSONValue(from: decoder)
      if let record = try? StoreRecord<Key, Metadata>(from: decoder) {
        self.record = record
        key = record.key
      } else {
        record = nil
        key = try? decoder.container(keyedBy: KeyOnly.self).decode(Key.self, forKey: .key)
      }
    }
  }

  private struct Envelope: Decodable {
    let records: [Entry]
    let members: [String: JSONValue]

    private enum CodingKeys: String, CodingKey { case records }

    init(from decoder: any Decoder) throws {
      records = try decoder.container(keyedBy: CodingKeys.self).decode([Entry].self, forKey: .records)
      members = try JSONValue(from: decoder).members
    }
  }

  /// Decodes a store file's bytes.
  static func decode(_ bytes: [UInt8]) -> Result<Contents, Problem> {
    if bytes.isEmpty { return .failure(.corrupt("the file is empty")) }
    let data = Data(bytes)
    let decoder = JSONDecoder()
    let header: Header
    do {
      header = try decoder.decode(Header.self, from: data)
    } catch {
      // Not JSON at all, or not an object: is it a store that was damaged, or something else?
      if (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil {
        return .failure(.notAStore("JSON, but not an object with a docbm-store format"))
      }
      return .failure(.corrupt("not valid JSON"))
    }
    guard header.format == formatName else {
      return .failure(
        .notAStore("its format is \(header.format.map { "\"\($0)\"" } ?? "missing"), not \"\(formatName)\""))
    }
    guard let version = header.schemaVersion else { return .failure(.corrupt("no schemaVersion")) }
    if version > schemaVersion { return .failure(.newerVersion(version)) }
    guard version >= 1 else { return .failure(.corrupt("schemaVersion \(version)")) }
    let envelope: Envelope
    do {
      envelope = try decoder.decode(Envelope.self, from: data)
    } catch {
      return .failure(.corrupt("its records cannot be read: \(error)"))
    }
    var contents = Contents()
    var keys = Set<Key>()
    for entry in envelope.records {
      if let record = entry.record, keys.insert(record.key).inserted {
        contents.records.append(record)
      }
    }
    // An unreadable record gives way to a readable one with the same key.
    for entry in envelope.records where entry.record == nil {
      if let key = entry.key, keys.contains(key) { continue }
      contents.unreadable.append(entry.raw)
    }
    contents.unknownMembers = envelope.members.filter {
      !["format", "schemaVersion", "records"].contains($0.key)
    }
    return .success(contents)
  }

  private struct Output: Encodable {
    let contents: Contents

    private enum CodingKeys: String, CodingKey { case format, schemaVersion, records }

    func encode(to encoder: any Encoder) throws {
      var unknown = encoder.container(keyedBy: AnyCodingKey.self)
      for (name, value) in contents.unknownMembers { try unknown.encode(value, forKey: AnyCodingKey(name)) }
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(formatName, forKey: .format)
      try container.encode(schemaVersion, forKey: .schemaVersion)
      var records = container.nestedUnkeyedContainer(forKey: .records)
      for record in contents.records { try records.encode(record) }
      for raw in contents.unreadable { try records.encode(raw) }
    }
  }

  /// Encodes contents as the store file's bytes: sorted members, one record per few lines,
  /// so that a person can read it and a diff shows what changed.
  static func encode(_ contents: Contents) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    var data = try encoder.encode(Output(contents: contents))
    data.append(UInt8(ascii: "\n"))
    return data
  }
}
