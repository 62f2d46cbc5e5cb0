import { onDemand } from './code-on-demand.ts';

const extras = [
  onDemand(() => import('./tandem-review-panel.ts')),
  onDemand(() => import('./tandem-recent-runs.ts')),
  onDemand(() => import('./tandem-annotation-panel.ts')),
  onDemand(() => import('./tandem-selection-actions.ts')),
  onDemand(() => import('./tandem-queue-bar.ts')),
  onDemand(() => import('./tandem-aside-box.ts')),
  onDemand(() => import('./tandem-run-activity.ts')),
];

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
  for (const load of extras) void load();
}

export type DocumentRecords = typeof import('./document-records.ts');

/**
 * The code of a document's records (client/document-records.ts), loaded on the first call; every
 * call returns the same promise (client/code-on-demand.ts says what happens when it fails).
 */
export const loadDocumentRecords: () => Promise<DocumentRecords> = onDemand(() => import('./document-records.ts'));
