import FoundationEssentials

/// A JSON value kept as it was read: the parts of a store file this version of docbm does
/// not interpret (fields added by a newer version, records it cannot decode), so that a
/// rewrite gives them back unchanged.
///
/// Integers that fit in 64 bits stay integers; other numbers are kept as `Double`.
package enum JSONValue: Hashable, Sendable, Codable {
  case null
  case bool(Bool)
  case integer(Int64)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  package init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    // Each kind is tried in turn: a mismatch tries the next, and the last one's error stands.
    if container.decodeNil() {
      self = .null
    } else if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Int64.self) {
      self = .integer(value)
    } else if let value = try? container.decode(Double.self) {
      self = .number(value)
    } else if let value = try? container.decode(String.self) {
      self = .string(value)
    } else if let value = try? container.decode([JSONValue].self) {
      self = .array(value)
    } else {
      self = .object(try container.decode([String: JSONValue].self))
    }
  }

  package func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case .bool(let value): try container.encode(value)
    case .integer(let value): try container.encode(value)
    case .number(let value): try container.encode(value)
    case .string(let value): try container.encode(value)
    case .array(let value): try container.encode(value)
    case .object(let value): try container.encode(value)
    }
  }

  /// The members of an object; empty for any other value.
  package var members: [String: JSONValue] {
    if case .object(let members) = self { members } else { [:] }
  }

  /// The value as JSON text on one line, members sorted (so that equal values read the
  /// same), slashes as they are.
  package var jsonText: String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    // Encoding a value decoded from JSON cannot fail but for a number JSON cannot write
    // (infinite or NaN), which no store file holds.
    return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
  }

  /// A record's key as people and programs name it outside Swift (on the command line, in
  /// libdocbm): a string as itself, anything else as its ``jsonText``.
  package var keyText: String {
    if case .string(let text) = self { text } else { jsonText }
  }
}

extension BookmarkStoreError where Key == JSONValue {
  /// ``description``, with a key named as ``JSONValue/keyText`` names it.
  package var keyedDescription: String {
    if case .notFound(let key) = self { return "the store has no record with the key \(key.keyText)" }
    return description
  }
}

/// A coding key for any member name: how unknown members are written back.
struct AnyCodingKey: CodingKey {
  let stringValue: String
  var intValue: Int? { nil }
  init(_ string: String) { stringValue = string }
  init?(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { nil }
}
