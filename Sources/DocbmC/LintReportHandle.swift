import DocumentBookmarks

/// A `docbm_lint_report`: a ``SaveProbeReport`` with its findings' strings in C form.
final class LintReportHandle: CHandle {
  /// One finding's kind, message and fix.
  struct Finding {
    let kind: StaticCString
    let message: CStringCopy
    let fix: CStringCopy
  }

  let verdict: SaveProbeReport.Verdict
  let summary: CStringCopy
  let findings: [Finding]

  init(_ report: SaveProbeReport) {
    // The fixes name docbm.h's calls, not Swift's.
    var report = report
    report.findings = report.findings.map { $0.naming(.c) }
    verdict = report.verdict
    summary = CStringCopy(report.summary)
    findings = report.findings.map { finding in
      Finding(
        kind: LintReportHandle.kindNames[finding.kind]!, message: CStringCopy(finding.message),
        fix: CStringCopy(finding.fix))
    }
  }

  deinit {
    summary.release()
    for finding in findings {
      finding.message.release()
      finding.fix.release()
    }
  }

  /// The finding kinds' names, made once.
  private static let kindNames = Dictionary(
    uniqueKeysWithValues: SaveFinding.Kind.allCases.map { ($0, StaticCString($0.rawValue)) })
}
