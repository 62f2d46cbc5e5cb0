import type { Author } from '../../shared/annotations.ts';
import type { RunChange, RunItem, RunRecord, RunState } from '../../shared/run-record.ts';

/** A run to create: `queued`, with its items `pending`. Times are milliseconds since the epoch. */
export interface NewRun {
  id: string;
  docId: string;
  createdBy: Author;
  createdAt: number;
  /** The whole document as Markdown at send time: the agent's context. */
  contextMarkdown: string;
  items: { instructionId: string; blockId: string; instruction: string; quote: string }[];
}

/** A run as the store keeps it: the public record's fields plus the bookkeeping of its lifecycle. */
export interface StoredRun {
  id: string;
  docId: string;
  state: RunState;
  createdBy: Author;
  createdAt: number;
  updatedAt: number;
  claimedBy: string | null;
  leaseExpiresAt: number | null;
  summary: string | null;
  error: string | null;
  contextMarkdown: string;
  items: RunItem[];
  changes: RunChange[];
}

export type CreateRunResult = { ok: true; run: StoredRun } | { ok: false; reason: 'outstanding' };

/**
 * The run store. SQLite implements it (sqlite-runs.ts); PostgreSQL can with the same tables, as
 * every method is asynchronous and the one-outstanding-run rule is a partial unique index, not
 * a check in code.
 */
export interface RunStore {
  /**
   * Inserts a `queued` run and its items, all or nothing. Refuses with `outstanding` when the
   * document has a run that is queued, claimed or in review: the database decides, so of any
   * number of concurrent calls for one document at most one succeeds.
   */
  createRun(run: NewRun): Promise<CreateRunResult>;
  getRun(id: string): Promise<StoredRun | null>;
  /** Every run of a document, newest first. */
  listRuns(docId: string): Promise<StoredRun[]>;
  /** The run of a document that is queued, claimed or in review, if any. */
  outstandingRun(docId: string): Promise<StoredRun | null>;
}

/**
 * Which document each annotation belongs to, so that routes addressed by an annotation id alone
 * (`/api/annotations/:id/...`) find its `<id>/notes`. The first document to claim an id keeps it.
 */
export interface AnnotationDocIndex {
  add(docId: string, annotationIds: readonly string[]): Promise<void>;
  docOf(annotationId: string): Promise<string | null>;
}

/** The public JSON of a run (`GET /api/runs/:runId` and the `<id>/runs` mirror). */
export function toRunRecord(run: StoredRun): RunRecord {
  return {
    runId: run.id,
    docId: run.docId,
    state: run.state,
    items: run.items.map((item) => ({ ...item })),
    changes: run.changes.map((change) => ({ ...change })),
    createdAt: new Date(run.createdAt).toISOString(),
    createdBy: { id: run.createdBy.id, name: run.createdBy.name },
    updatedAt: new Date(run.updatedAt).toISOString(),
    summary: run.summary,
    error: run.error,
  };
}
