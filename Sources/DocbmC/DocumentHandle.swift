import DocumentBookmarks

/// A `docbm_document`: an ``AnchoredDocument``, by default with the user's escrow, as the
/// `docbm` command makes it.
final class DocumentHandle: CHandle {
  let document: AnchoredDocument

  init(path: FilePath, searchBudget: SearchBudget = .standard, escrow: KeyEscrow? = .default) {
    document = BookmarkService(searchBudget: searchBudget, escrow: escrow).documents(anchoredOn: path)
  }

  /// The handle of a document made already (by its first save).
  init(_ document: AnchoredDocument) {
    self.document = document
  }
}

/// A `docbm_resolution`: a ``Resolution`` with its strings in C form.
final class ResolutionHandle: CHandle {
  /// The target's path.
  let path: CStringCopy
  /// The refreshed bookmark's text form, if one was made.
  let refreshed: CStringCopy?
  /// The stale reasons as `docbm_stale_reason` bits.
  let staleReasons: UInt32
  /// Whether the target is a folder.
  let isFolder: Bool
  /// Whether the target is in a Trash.
  let isInTrash: Bool

  init(_ resolution: Resolution) {
    path = CStringCopy(resolution.path.bytes)
    refreshed = resolution.refreshed.map { CStringCopy($0.text) }
    staleReasons = resolution.staleReasons.reduce(0) { $0 | $1.cBit }
    isFolder = resolution.kind == .folder
    isInTrash = resolution.isInTrash
  }

  deinit {
    path.release()
    refreshed?.release()
  }
}

/// A `docbm_check_result`: a ``DocumentCheck``'s verdict and message in C form.
final class CheckResultHandle: CHandle {
  let verdict: CheckVerdict
  let message: CStringCopy
  let path: CStringCopy
  let bookmarkCount: Int

  init(_ check: DocumentCheck) {
    verdict = check.verdict
    message = CStringCopy(check.message)
    path = CStringCopy(check.document.bytes)
    bookmarkCount = check.bookmarks.count
  }

  deinit {
    message.release()
    path.release()
  }
}

/// A `docbm_repair_report`: a ``DocumentRepairer/Report`` in C form.
final class RepairReportHandle: CHandle {
  let action: DocumentRepairer.Report.Action
  let refusal: CStringCopy?
  let message: CStringCopy
  /// The verdict after the repair, or before it when nothing was written.
  let verdict: CheckVerdict
  let remedy: CStringCopy?
  let recordedDocument: CStringCopy?
  let advice: CStringCopy?

  init(_ report: DocumentRepairer.Report) {
    action = report.action
    refusal = report.refusal.map { CStringCopy($0.rawValue) }
    message = CStringCopy(report.message)
    verdict = (report.after ?? report.before).verdict
    remedy = report.remedy.map { CStringCopy($0.rawValue) }
    recordedDocument = report.recordedDocument.map { CStringCopy($0.bytes) }
    advice = report.advice.map { CStringCopy($0) }
  }

  deinit {
    refusal?.release()
    message.release()
    remedy?.release()
    recordedDocument?.release()
    advice?.release()
  }
}
