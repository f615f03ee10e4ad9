/// Reads the XML that GLib writes and reads (GMarkup's subset): elements with attributes,
/// the five predefined entities and character references, comments, processing
/// instructions and CDATA; text between elements is passed over, and a document type
/// declaration is refused. The bytes are read in order, the open elements' names kept on
/// a stack, so that time and memory grow with the file's length alone, whatever it holds.
struct MarkupReader {
  /// What the reader met, in document order.
  enum Event: Equatable {
    case start(name: String, attributes: [String: String])
    case end(name: String)
  }

  /// Why the bytes are not well-formed markup, and the line where that shows.
  struct Failure: Error, Equatable {
    let line: Int
    let reason: String
  }

  private let bytes: [UInt8]
  private var index = 0

  private init(_ bytes: [UInt8]) { self.bytes = bytes }

  /// Hands `body` every start and end of an element in `bytes`, in order, as they are
  /// read: nothing is kept but the open elements' names, so that memory follows the
  /// document's depth, not its length (many tiny elements cost no more than a few).
  ///
  /// - Throws: ``Failure`` for text that is not well-formed (an unclosed or mismatched
  ///   element, a bad attribute or entity, a name or value that is not UTF-8) or that
  ///   declares a document type; `body` has then seen the events before it.
  static func read(_ bytes: [UInt8], _ body: (Event) -> Void) throws(Failure) {
    var reader = MarkupReader(bytes)
    try reader.read(body)
  }

  /// Every start and end of an element in `bytes`, in order (``read(_:_:)``, kept).
  static func events(in bytes: [UInt8]) throws(Failure) -> [Event] {
    var events: [Event] = []
    try read(bytes) { events.append($0) }
    return events
  }

  private mutating func read(_ body: (Event) -> Void) throws(Failure) {
    var open: [String] = []
    var sawRoot = false
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    while let start = bytes[index...].firstIndex(of: UInt8(ascii: "<")) {
      index = start
      if open.isEmpty, sawRoot, !isSkippable(at: index) { throw failure("content after the root element") }
      if skip(over: "<?", to: "?>") || skip(over: "<!--", to: "-->") { continue }
      if skip(over: "<![CDATA[", to: "]]>") {
        if open.isEmpty { throw failure("CDATA outside the root element") }
        continue
      }
      if starts(with: "<!") { throw failure("a document type declaration is not read") }
      if starts(with: "</") {
        index += 2
        let name = try readName()
        skipSpaces()
        try expect(">")
        guard open.last == name else {
          throw failure(open.last.map { "</\(name)> closes <\($0)>" } ?? "</\(name)> closes nothing")
        }
        open.removeLast()
        body(.end(name: name))
        continue
      }
      index += 1
      let name = try readName()
      var attributes: [String: String] = [:]
      while true {
        let spaced = skipSpaces()
        if starts(with: "/>") {
          index += 2
          body(.start(name: name, attributes: attributes))
          body(.end(name: name))
          sawRoot = true
          break
        }
        if starts(with: ">") {
          index += 1
          body(.start(name: name, attributes: attributes))
          open.append(name)
          sawRoot = true
          break
        }
        guard spaced else { throw failure("expected a space, > or /> in <\(name)>") }
        let attribute = try readName()
        skipSpaces()
        try expect("=")
        skipSpaces()
        let value = try readValue()
        guard attributes.updateValue(value, forKey: attribute) == nil else {
          throw failure("\(attribute) given twice in <\(name)>")
        }
      }
    }
    if let unclosed = open.last { throw failure("<\(unclosed)> is not closed") }
    guard sawRoot else { throw failure("no element") }
  }

  /// Whether what starts at `position` may follow the root element (a comment, a
  /// processing instruction).
  private func isSkippable(at position: Int) -> Bool {
    bytes[position...].starts(with: "<!--".utf8) || bytes[position...].starts(with: "<?".utf8)
  }

  private func starts(with text: String) -> Bool { bytes[index...].starts(with: text.utf8) }

  /// Skips from `opening` to past `closing` when the text here starts with `opening`.
  private mutating func skip(over opening: String, to closing: String) -> Bool {
    guard starts(with: opening) else { return false }
    let closingBytes = Array(closing.utf8)
    var position = index + opening.utf8.count
    while position + closingBytes.count <= bytes.count {
      if bytes[position..<(position + closingBytes.count)].elementsEqual(closingBytes) {
        index = position + closingBytes.count
        return true
      }
      position += 1
    }
    index = bytes.count
    return true
  }

  @discardableResult
  private mutating func skipSpaces() -> Bool {
    let start = index
    while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    return index > start
  }

  private mutating func expect(_ character: Character) throws(Failure) {
    guard index < bytes.count, bytes[index] == character.asciiValue else {
      throw failure("expected \(character)")
    }
    index += 1
  }

  private mutating func readName() throws(Failure) -> String {
    let start = index
    while index < bytes.count {
      let byte = bytes[index]
      let isNameByte =
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
        || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
        || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte >= 0x80
        || [UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "-"), UInt8(ascii: ".")].contains(byte)
      guard isNameByte else { break }
      index += 1
    }
    guard index > start, let name = String(validating: bytes[start..<index], as: UTF8.self) else {
      throw failure("expected a name")
    }
    return name
  }

  /// A quoted attribute value, its entities replaced.
  private mutating func readValue() throws(Failure) -> String {
    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
      throw failure("expected a quoted value")
    }
    let quote = bytes[index]
    index += 1
    var value: [UInt8] = []
    while index < bytes.count, bytes[index] != quote {
      let byte = bytes[index]
      if byte == UInt8(ascii: "<") { throw failure("< inside a value") }
      if byte == UInt8(ascii: "&") {
        value.append(contentsOf: try readEntity())
      } else {
        value.append(byte)
        index += 1
      }
    }
    guard index < bytes.count else { throw failure("a value is not closed") }
    index += 1
    guard let text = String(validating: value, as: UTF8.self) else { throw failure("a value is not UTF-8") }
    return text
  }

  /// The bytes an entity or character reference at `index` stands for.
  private mutating func readEntity() throws(Failure) -> [UInt8] {
    guard let end = bytes[index...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
      throw failure("& without ;")
    }
    let name = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
    index = end + 1
    switch name {
    case "lt": return [UInt8(ascii: "<")]
    case "gt": return [UInt8(ascii: ">")]
    case "amp": return [UInt8(ascii: "&")]
    case "quot": return [UInt8(ascii: "\"")]
    case "apos": return [UInt8(ascii: "'")]
    default:
      let number: UInt32? =
        name.hasPrefix("#x")
        ? UInt32(name.dropFirst(2), radix: 16) : name.hasPrefix("#") ? UInt32(name.dropFirst()) : nil
      guard let number, number != 0, let scalar = Unicode.Scalar(number) else {
        throw failure("unknown entity &\(name);")
      }
      return Array(String(Character(scalar)).utf8)
    }
  }

  private func failure(_ reason: String) -> Failure {
    let end = min(index, bytes.count)
    return Failure(line: bytes[..<end].count { $0 == UInt8(ascii: "\n") } + 1, reason: reason)
  }
}
