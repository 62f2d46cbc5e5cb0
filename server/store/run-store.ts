import type { Author } from '../../shared/notes/annotations.ts';
import type { ChangeVariants, ItemDecision, NotReverted, RunChange, RunItem, RunRecord, RunState } from '../../shared/protocol/run-record.ts';
import type { SavedRunScope } from '../../shared/applier/run-scope.ts';
import type { RunChangeListener } from './run-changes.ts';
import type { TokenUsage } from '../../shared/wire/activity.ts';

/** How many accepted runs per document stay revertible (REV8): their scopes and deletions are kept. */
export const revertibleRuns = 5;

/** How many runs of a document beside the outstanding one its `<id>/runs` mirror holds (`RunStore.mirroredRuns`). */
export interface MirrorWindow {
  /** The newest runs that are not outstanding. */
  finished: number;
  /** The newest accepted or discarded runs, whether or not among those. */
  decided: number;
}

/** A run to create: `queued`, with its items `pending`. Times are milliseconds since the epoch. */
export interface NewRun {
  id: string;
  docId: string;
  createdBy: Author;
  createdAt: number;
  /** The whole document as Markdown at send time: the agent's context. */
  contextMarkdown: string;
  /** `currentText` and `drifted` (RUN5) default to null and false. */
  items: { instructionId: string; blockId: string; instruction: string; quote: string; currentText?: string | null; drifted?: boolean; variantsWanted?: number }[];
}

/** A run as the store keeps it: the public record's fields plus the bookkeeping of its lifecycle. */
export interface StoredRun {
  id: string;
  docId: string;
  state: RunState;
  createdBy: Author;
  createdAt: number;
  updatedAt: number;
  /** The agent holding the claim (claimed), or that held it last (review and after). */
  claimedBy: Author | null;
  /** Set while claimed only. */
  leaseExpiresAt: number | null;
  /** The editor who accepted or discarded the run. */
  decidedBy: Author | null;
  /** Set when an accepted run was reverted (REV8); times in milliseconds. */
  reverted: { at: number; by: Author; notReverted: NotReverted[] } | null;
  summary: string | null;
  error: string | null;
  contextMarkdown: string;
  items: RunItem[];
  changes: RunChange[];
  /** What the agent told of its work (MODEL8); absent or null before it told anything. */
  activity?: RunActivity | null;
}

/** What the agents holding a run told of their work (MODEL8); times in milliseconds. */
export interface RunActivity {
  model: string | null;
  /** The last lines, oldest first. */
  lines: { at: number; text: string }[];
  /** Summed over every report; null before the first that had any. */
  usage: TokenUsage | null;
}

/** One report of the agent holding a run: a line, the tokens used since its last report, its model. */
export interface ActivityReport {
  line?: string;
  usage?: TokenUsage;
  model?: string;
}

export type CreateRunResult = { ok: true; run: StoredRun } | { ok: false; reason: 'outstanding' };

/** One applied batch of ops, recorded with everything it changed, all or nothing. */
export interface AppliedBatch {
  idempotencyKey: string;
  /** What `POST ops` answered; a replay of the key answers it again. */
  response: unknown;
  changes: RunChange[];
  /** The run's whole undo scope after this batch (it replaces the stored one). */
  scope: SavedRunScope;
}

/** How the agent answered the instructions it did not change: `reason` by instruction id. */
export interface Completion {
  summary: string | null;
  refusals: ReadonlyMap<string, string>;
}

/**
 * The run store. SQLite (sqlite-runs.ts) and PostgreSQL (pg-runs.ts) implement it with the same
 * tables; the one-outstanding-run rule is a partial unique index, not a check in code, so it
 * holds across every instance that shares a PostgreSQL database.
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
  /**
   * The runs of a document that its `<id>/runs` mirror holds (server/runs/run-mirror.ts): the
   * outstanding one, if any, the `window.finished` newest of the others and the
   * `window.decided` newest accepted or discarded ones, newest first. Reads those runs only,
   * however many the document has had.
   */
  mirroredRuns(docId: string, window: MirrorWindow): Promise<StoredRun[]>;
  /** The run of a document that is queued, claimed or in review, if any. */
  outstandingRun(docId: string): Promise<StoredRun | null>;

  /*
   * The lifecycle (docs/api.md, run states; shared/PROTOCOL.md RUN3). Each transition is one conditional update that
   * resolves false, changing nothing, when the run is not in the state it leaves (or, for an
   * agent's step, not claimed by that agent): of concurrent callers exactly one wins.
   */

  /** Every queued run of every document, oldest first. */
  listQueued(): Promise<StoredRun[]>;
  /** queued → claimed by `agent` until `leaseExpiresAt`. */
  claimRun(id: string, agent: Author, now: number, leaseExpiresAt: number): Promise<boolean>;
  /** Moves the lease of a run claimed by `agentId` whose lease has not run out at `now`. */
  renewLease(id: string, agentId: string, now: number, leaseExpiresAt: number): Promise<boolean>;
  /** Claimed runs whose lease ran out at or before `now`. */
  expiredClaims(now: number): Promise<StoredRun[]>;
  /**
   * claimed (lease run out at `now`) → queued: the claim, the changes, the batches and the
   * scope are dropped and every item is pending again.
   */
  requeueRun(id: string, now: number): Promise<boolean>;
  /** The stored response of the batch `idempotencyKey` of a run, or undefined. */
  findBatch(runId: string, idempotencyKey: string): Promise<unknown | undefined>;
  /**
   * Records a batch of a run claimed by `agentId`: the response under its key, its changes
   * (appended), the items it answered as `changed`, and the run's scope.
   */
  recordBatch(runId: string, agentId: string, now: number, batch: AppliedBatch): Promise<boolean>;
  /**
   * MODEL8: adds a report of the agent whose lease on the claimed run is live at `now` (a line
   * kept with the last ones, tokens added, the model); false, writing nothing, for anyone else.
   */
  recordActivity(runId: string, agentId: string, now: number, report: ActivityReport): Promise<boolean>;
  /**
   * claimed by `agentId` → review. Items changed stay changed (with the agent's reason, if it
   * gave one); items the agent refused become `refused`; the rest become `unchanged`.
   */
  completeRun(id: string, agentId: string, now: number, completion: Completion): Promise<boolean>;
  /** claimed by `agentId` → failed with `message`; changes, batches and scope dropped, items pending. */
  failRun(id: string, agentId: string, now: number, message: string): Promise<boolean>;
  /**
   * queued or claimed → cancelled by `by` (kept as `decidedBy`, RUN6): the lease ends, so the
   * agent that held the claim holds nothing; changes, batches and scope dropped, items pending.
   */
  cancelRun(id: string, now: number, by: Author): Promise<boolean>;
  /**
   * Decides every item of a run in review not yet decided as `state` (REV12), then the run
   * leaves review, decided by `by` (kept as `decidedBy`): `accepted` when any of its items was
   * accepted, else `discarded`. `notes` (change position → why it was not applied, REV6) are
   * written on the run's changes in the same step. A discarded run's scope is dropped; an
   * accepted run keeps it (it can be reverted, REV8), and the scopes of the document's accepted
   * runs older than its last `revertibleRuns` are dropped.
   */
  decideRun(id: string, state: 'accepted' | 'discarded', now: number, by?: Author, notes?: ReadonlyMap<number, string>): Promise<boolean>;
  /**
   * REV12: decides one item of a run in review, if it is not decided yet, with `notes` as for
   * `decideRun`. When no item with changes is left undecided, the run leaves review as
   * `decideRun` does (its items without changes take the run's outcome). Resolves the run's state
   * after the step, or false, changing nothing, when the run is not in review or the item is
   * decided already (or not of the run): of concurrent callers for one item exactly one wins.
   */
  decideItem(
    id: string,
    instructionId: string,
    decision: ItemDecision,
    now: number,
    by: Author,
    notes?: ReadonlyMap<number, string>,
  ): Promise<'review' | 'accepted' | 'discarded' | false>;
  /**
   * VAR2: the text of a run in review now shows `variants.chosen` for undecided item
   * `instructionId`: its change with variants becomes `after` and `variants`, and the run's
   * scope `scope`, in one step; false, changing nothing, when the run is not in review, the item
   * is decided or has no change with variants.
   */
  chooseVariant(id: string, instructionId: string, now: number, choice: { after: string; variants: ChangeVariants; scope: SavedRunScope }): Promise<boolean>;
  /** Replaces the stored scope of a run in review or accepted (and not reverted); false otherwise. */
  storeScope(runId: string, scope: SavedRunScope): Promise<boolean>;
  /**
   * accepted (not yet reverted, its scope still stored) → reverted by `by` at `now`, with what was
   * not reverted; the scope is dropped. The run stays `accepted`.
   */
  revertRun(id: string, now: number, by: Author, notReverted: readonly NotReverted[]): Promise<boolean>;
  /**
   * discarded → review again (Undo discard, REV9), `decidedBy` and the items' decisions cleared (its scope is stored
   * next, with `storeScope`); false when the run is not discarded or the document has another
   * outstanding run.
   */
  reopenRun(id: string, now: number): Promise<boolean>;
  /**
   * accepted and reverted → not reverted again (Undo revert, REV14; its scope is stored next,
   * with `storeScope`, so that it is revertible again); false when the run is not a reverted
   * accepted run.
   */
  unrevertRun(id: string, now: number): Promise<boolean>;
  /** The undo scope stored for a run, or null. */
  loadScope(runId: string): Promise<SavedRunScope | null>;
  /**
   * The stored scopes of a document's runs whose changes can still be taken back: claimed, in
   * review, or accepted and revertible (REV8).
   */
  openScopes(docId: string): Promise<{ runId: string; scope: SavedRunScope }[]>;

  /**
   * Calls `listener(runId, docId)` after every write of a run that committed (created, a
   * transition, a lease, a batch, a scope, a revert…); the write resolves once every listener
   * settled; returns the unsubscribe (server/store/run-changes.ts).
   */
  onRunChanged(listener: RunChangeListener): () => void;
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
    claimedBy: run.claimedBy && { id: run.claimedBy.id, name: run.claimedBy.name },
    lease: run.state === 'claimed' && run.leaseExpiresAt !== null ? { expiresAt: new Date(run.leaseExpiresAt).toISOString() } : null,
    decidedBy: run.decidedBy && { id: run.decidedBy.id, name: run.decidedBy.name },
    agent: run.claimedBy && { name: run.claimedBy.name, model: run.activity?.model ?? null },
    activity: (run.activity?.lines ?? []).map((line) => ({ at: new Date(line.at).toISOString(), text: line.text })),
    usage: run.activity?.usage ? { ...run.activity.usage } : null,
    reverted: run.reverted && {
      at: new Date(run.reverted.at).toISOString(),
      by: { id: run.reverted.by.id, name: run.reverted.by.name },
      notReverted: run.reverted.notReverted.map((entry) => ({ ...entry })),
    },
  };
}
