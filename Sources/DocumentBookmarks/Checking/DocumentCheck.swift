/// The checker's answer for one document, with its evidence.
public struct DocumentCheck: Hashable, Sendable, Codable {
  /// One bookmark found in the document's bytes, and what became of it.
  public struct FoundEvidence: Hashable, Sendable, Codable {
    /// Byte offset in the document where the bookmark's form starts.
    public let offset: UInt64
    /// How it was stored.
    public let form: BookmarkForm
    /// The key it names.
    public let fingerprint: KeyFingerprint
    /// The absolute path it recorded, read without verification.
    public let recordedTarget: FilePath?
    /// For a bookmark that does not verify, the document it was made on, as it recorded
    /// it (read without verification; `nil` for bookmarks made before that field).
    public let recordedDocument: FilePath?
    /// Whether it verifies with the document's key.
    public let verifies: Bool
    /// Whether it resolves now.
    public let resolves: Bool
    /// Why it does not verify or resolve, when it does not.
    public let problem: DocbmError.Code?
  }

  /// The document checked.
  public let document: FilePath
  /// The verdict.
  public let verdict: CheckVerdict
  /// The fingerprint of the key the document carries, if any.
  public let keyFingerprint: KeyFingerprint?
  /// The key the escrow recorded for this document, if any.
  public let escrowedFingerprint: KeyFingerprint?
  /// Every bookmark found in the document.
  public let bookmarks: [FoundEvidence]
  /// One sentence on what the verdict means for this document.
  public var message: String { summary.text }
  /// The sentence, or what it is made from.
  let summary: Summary
  /// The Documents portal export the document was reached through, when it was (absent
  /// from JSON otherwise).
  public let portalDocument: PortalDocument?
  /// The escrow's record of the key the document carries, when the document is that
  /// record's file at a path the escrow does not know (it moved): the record as it should
  /// now be (``DocumentChecker/recordMoves(_:)``). Not part of JSON output.
  let escrowMove: EscrowRecord?
  /// For a document without a key checked with the whole escrow in memory, its bookmarks
  /// counted against the escrowed keys they name (what a hint is decided from). Not part of
  /// JSON output.
  let escrowedKeyTally: EscrowedKeyTally?
  /// For a document that lost its key, checked for a repairer's prospects, the file as the
  /// check found it (what the prospect is decided on). Not part of JSON output.
  let sighting: DocumentSighting?

  /// ``DocumentCheck/message``, kept as its parts for the common verdict and made into
  /// text when read: a tree check makes one result per document and reads the sentence of
  /// few (those it prints). Equal when their sentences are.
  enum Summary: Hashable, Sendable {
    case text(String)
    /// ``CheckVerdict/ok``: the document's key, how many bookmarks no longer resolve, and
    /// how many of those were not found only because the search stopped (`notFoundNearby`).
    case verified(key: KeyFingerprint, unresolved: Int, notFoundNearby: Int)

    var text: String {
      switch self {
      case .text(let text): text
      case .verified(let key, let unresolved, let nearby):
        unresolved == 0
          ? "the document has key \(key); every bookmark in it verifies and resolves"
          : "the document has key \(key); every bookmark in it verifies (\(unresolved) no longer resolve\(Self.why(unresolved, nearby)))"
      }
    }

    /// Why `unresolved` bookmarks do not resolve, `nearby` of them not found where the
    /// search looked.
    private static func why(_ unresolved: Int, _ nearby: Int) -> String {
      if nearby == 0 { return "" }
      if nearby == unresolved {
        return ": their targets were not found where the search looked, and may be further away"
      }
      return ": \(nearby) of their targets were not found where the search looked, and may be further away"
    }

    static func == (lhs: Summary, rhs: Summary) -> Bool { lhs.text == rhs.text }
    func hash(into hasher: inout Hasher) { hasher.combine(text) }
  }

  init(
    document: FilePath, verdict: CheckVerdict, keyFingerprint: KeyFingerprint?,
    escrowedFingerprint: KeyFingerprint?, bookmarks: [FoundEvidence], summary: Summary,
    portalDocument: PortalDocument? = nil, escrowMove: EscrowRecord? = nil,
    escrowedKeyTally: EscrowedKeyTally? = nil, sighting: DocumentSighting? = nil
  ) {
    self.escrowMove = escrowMove
    self.escrowedKeyTally = escrowedKeyTally
    self.sighting = sighting
    self.document = document
    self.verdict = verdict
    self.keyFingerprint = keyFingerprint
    self.escrowedFingerprint = escrowedFingerprint
    self.bookmarks = bookmarks
    self.summary = summary
    self.portalDocument = portalDocument
  }

  init(
    document: FilePath, verdict: CheckVerdict, keyFingerprint: KeyFingerprint?,
    escrowedFingerprint: KeyFingerprint?, bookmarks: [FoundEvidence], message: String,
    portalDocument: PortalDocument? = nil
  ) {
    self.init(
      document: document, verdict: verdict, keyFingerprint: keyFingerprint,
      escrowedFingerprint: escrowedFingerprint, bookmarks: bookmarks, summary: .text(message),
      portalDocument: portalDocument)
  }

  private enum CodingKeys: String, CodingKey {
    case document, verdict, keyFingerprint, escrowedFingerprint, bookmarks, message, portalDocument
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      document: try container.decode(FilePath.self, forKey: .document),
      verdict: try container.decode(CheckVerdict.self, forKey: .verdict),
      keyFingerprint: try container.decodeIfPresent(KeyFingerprint.self, forKey: .keyFingerprint),
      escrowedFingerprint: try container.decodeIfPresent(KeyFingerprint.self, forKey: .escrowedFingerprint),
      bookmarks: try container.decode([FoundEvidence].self, forKey: .bookmarks),
      message: try container.decode(String.self, forKey: .message),
      portalDocument: try container.decodeIfPresent(PortalDocument.self, forKey: .portalDocument))
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(document, forKey: .document)
    try container.encode(verdict, forKey: .verdict)
    try container.encodeIfPresent(keyFingerprint, forKey: .keyFingerprint)
    try container.encodeIfPresent(escrowedFingerprint, forKey: .escrowedFingerprint)
    try container.encode(bookmarks, forKey: .bookmarks)
    try container.encode(message, forKey: .message)
    try container.encodeIfPresent(portalDocument, forKey: .portalDocument)
  }
}
