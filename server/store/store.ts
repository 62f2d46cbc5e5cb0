import type { DocKind } from '../../shared/model/doc-layout.ts';
import type { AnnotationDocIndex, RunStore } from './run-store.ts';
import type { AsideBoard } from './aside-board.ts';
import type { AgentSightings } from './agent-sightings.ts';
import type { AuditLog } from './sqlite-audit.ts';
import type { RevocationList } from './sqlite-revocations.ts';
import type { AsyncUpdateLog, UpdateLog } from './update-log.ts';

export type { AnnotationDocIndex, NewRun, RunStore, StoredRun } from './run-store.ts';

/** A document as the catalogue knows it. Times are milliseconds since the epoch. */
export interface DocRecord {
  id: string;
  title: string;
  kind: DocKind;
  createdAt: number;
  updatedAt: number;
}

/**
 * Where Tandem keeps its catalogue of documents, the Yjs state of each Hocuspocus document
 * (full state, `Y.encodeStateAsUpdate`, plus the log of its updates since), its runs and its
 * annotation index. SQLite (sqlite-store.ts, the default) and PostgreSQL (pg-store.ts) implement
 * it; every method is asynchronous but SQLite's `updates.append` (see update-log.ts). After
 * `close()` every method rejects.
 */
export interface Store {
  /** Adds a document to the catalogue with the initial state of its parts, all or nothing. */
  createDoc(record: DocRecord, states: ReadonlyMap<string, Uint8Array>): Promise<void>;
  getDoc(id: string): Promise<DocRecord | null>;
  /** Every document, most recently updated first. */
  listDocs(): Promise<DocRecord[]>;
  /** Changes the title and the time of the last change; no-op for an unknown id. */
  updateDoc(id: string, changes: { title: string; updatedAt: number }): Promise<void>;
  /** The stored state of a Hocuspocus document with its logged updates, as one update; null if nothing was stored. */
  loadState(name: string): Promise<Uint8Array | null>;
  /** The log of each Hocuspocus document's updates since its stored state, and their compaction. */
  readonly updates: UpdateLog | AsyncUpdateLog;
  /** Runs, their items, changes and applied batches. */
  readonly runs: RunStore;
  /** Which document each annotation id belongs to. */
  readonly annotationDocs: AnnotationDocIndex;
  /** The ids of revoked tokens. */
  readonly revocations: RevocationList;
  /** Who did what to which document. */
  readonly audit: AuditLog;
  /** The asides of claimed runs (ASIDE8): in memory for SQLite, in the database for PostgreSQL (SCALE5). */
  readonly asides: AsideBoard;
  /**
   * When each agent was last seen, for every instance sharing the store (RUN7, SCALE6); null for
   * a store only one process uses, whose roster stays in memory.
   */
  readonly agentSightings: AgentSightings | null;
  /**
   * Calls `listener(docId)` when another instance sharing this store changed a run of `docId`
   * (SCALE3); a store only one process uses never calls it. Returns the unsubscribe.
   */
  onRemoteRunChanged(listener: (docId: string) => void): () => void;
  close(): Promise<void>;
}

/** The SQLite store, whose update log appends synchronously. */
export interface SyncStore extends Store {
  readonly updates: UpdateLog;
}
