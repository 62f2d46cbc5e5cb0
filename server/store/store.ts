import type { AuthorshipBook } from './authorship-book.ts';
import type { VersionBook } from './version-book.ts';
import type { DocKind } from '../../shared/model/doc-layout.ts';
import type { AnnotationDocIndex, RunStore } from './run-store.ts';
import type { AsideBoard } from './aside-board.ts';
import type { AgentSightings } from './agent-sightings.ts';
import type { AuditLog } from './sqlite-audit.ts';
import type { RevocationList } from './sqlite-revocations.ts';
import type { InviteBook } from './invite-book.ts';
import type { InlineUpdateLog, UpdateLog } from './update-log.ts';
import type { DocSearch } from './doc-search.ts';
import type { AssetStore } from './asset-store.ts';

export type { AnnotationDocIndex, NewRun, RunStore, StoredRun } from './run-store.ts';

/** A document as the catalogue knows it. Times are milliseconds since the epoch. */
export interface DocRecord {
  id: string;
  title: string;
  kind: DocKind;
  createdAt: number;
  updatedAt: number;
  /** When it was moved to the trash (CAT3), null while it is not there. */
  deletedAt: number | null;
}

/** A document as it enters the catalogue: not in the trash. */
export type NewDocRecord = Omit<DocRecord, 'deletedAt'>;

/**
 * Where Tandem keeps its catalogue of documents, the Yjs state of each Hocuspocus document
 * (full state, `Y.encodeStateAsUpdate`, plus the log of its updates since), its runs and its
 * annotation index. SQLite (sqlite-store.ts, the default) and PostgreSQL (pg-store.ts) implement
 * it; every method is asynchronous but SQLite's `updates.inline` appends (see update-log.ts). After
 * `close()` every method rejects.
 */
export interface Store {
  /** Adds a document to the catalogue with the initial state of its parts, all or nothing. */
  createDoc(record: NewDocRecord, states: ReadonlyMap<string, Uint8Array>): Promise<void>;
  getDoc(id: string): Promise<DocRecord | null>;
  /** Every document not in the trash, most recently updated first; with `'trash'`, those in the trash, most recently trashed first. */
  listDocs(where?: 'live' | 'trash'): Promise<DocRecord[]>;
  /** CAT3: moves a document to the trash at `at`; false when there is no such document or it is there already. */
  trashDoc(id: string, at: number): Promise<boolean>;
  /** CAT3: takes a document out of the trash if it was put there at `since` or later; false otherwise. */
  restoreDoc(id: string, since: number): Promise<boolean>;
  /**
   * CAT3: removes for good every document trashed before `before`: its catalogue entry, states,
   * update logs, runs, annotation index, search entry, versions and assets (its audit entries stay). Returns their ids.
   */
  purgeTrash(before: number): Promise<string[]>;
  /** The images uploaded into documents (IMG3). */
  readonly assets: AssetStore;
  /** The full-text index of titles and texts (CAT2). */
  readonly search: DocSearch;
  /** Changes the title and the time of the last change; no-op for an unknown id. */
  updateDoc(id: string, changes: { title: string; updatedAt: number }): Promise<void>;
  /** The stored state of a Hocuspocus document with its logged updates, as one update; null if nothing was stored. */
  loadState(name: string): Promise<Uint8Array | null>;
  /** The log of each Hocuspocus document's updates since its stored state, and their compaction. */
  readonly updates: UpdateLog;
  /** Runs, their items, changes and applied batches. */
  readonly runs: RunStore;
  /** Which document each annotation id belongs to. */
  readonly annotationDocs: AnnotationDocIndex;
  /** The ids of revoked tokens. */
  readonly revocations: RevocationList;
  /** Invites to documents and the people who joined by them (INV1–INV6). */
  readonly invites: InviteBook;
  /** Who wrote each client id's items of the text documents (WHO1). */
  readonly authorship: AuthorshipBook;
  /** The versions of each document (HIST1). */
  readonly versions: VersionBook;
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

/** The SQLite store, whose update log also appends inline. */
export interface SyncStore extends Store {
  readonly updates: InlineUpdateLog;
}
