let extrasAsked = false;

/**
 * The elements that opening a document and typing in it do not need, each in a chunk of its
 * own that loads once the document's text is there, so that neither the first paint nor the
 * text's arrival waits for their code (the review and its text diff, the runs, the annotation
 * margin and cards, the selection buttons, the queue bar and the send dialog, a run's asides
 * and its agent's activity). Templates render their tags from the start: a custom element
 * upgrades where it stands when its definition arrives, and Lit applies the properties set on
 * it before. Only the first call does anything.
 */
export function loadDocumentExtras(): void {
  if (extrasAsked) return;
  extrasAsked = true;
  void import('./tandem-review-panel.ts');
  void import('./tandem-recent-runs.ts');
  void import('./tandem-annotation-panel.ts');
  void import('./tandem-selection-actions.ts');
  void import('./tandem-queue-bar.ts');
  void import('./tandem-aside-box.ts');
  void import('./tandem-run-activity.ts');
}

export type DocumentRecords = typeof import('./document-records.ts');

let records: Promise<DocumentRecords> | null = null;

/**
 * The code of a document's records (client/document-records.ts), loaded on the first call; every
 * call returns the same promise, but a load that failed is tried again at the next call.
 */
export function loadDocumentRecords(): Promise<DocumentRecords> {
  records ??= import('./document-records.ts').catch((error: unknown) => {
    records = null;
    throw error;
  });
  return records;
}
