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
  public let message: String
  /// The Documents portal export the document was reached through, when it was (absent
  /// from JSON otherwise).
  public internal(set) var portalDocument: PortalDocument? = nil
}
