import * as Y from 'yjs';
import type {
  afterHandleMessagePayload,
  beforeSyncPayload,
  beforeUnloadDocumentPayload,
  Document,
  Extension,
  onLoadDocumentPayload,
  onStoreDocumentPayload,
} from '@hocuspocus/server';
import type { UpdateLog } from '../store/update-log.ts';
import { compactWhenFull, defaultCompactionLimits, loadStored, type CompactionLimits, type FreshStates, type LogTail, type LogWrites } from './log-tail.ts';
import { AppendBeforeApply, type WriteBacks } from './append-before-apply.ts';
import { GroupCommit } from './group-commit.ts';
import { extensionPriority } from './extension-priorities.ts';

export interface PersistenceOptions {
  /** The store's update log (server/store/update-log.ts). */
  log: UpdateLog;
  onError: (error: unknown) => void;
  /** When to compact without waiting for the debounced store; `defaultCompactionLimits` if left out. */
  limits?: CompactionLimits;
  /** Told of a document loaded from its stored state alone (FreshSync, DUR6). */
  fresh?: FreshStates;
  /** Told when an update NotesGuard judged will not be applied after all (its append failed), so that it forgets the judgement. */
  onUnjudged?: (document: Document) => void;
  /**
   * Which client updates the server writes back after (NotesGuard, NOTES13). Read where the log
   * has no inline appends; with them the update and its write-back are both logged in the
   * synchronous stretch that applies the update.
   */
  writeBacks?: WriteBacks;
}

/**
 * Makes every acknowledged update durable, on SQLite and on PostgreSQL alike (rules DUR1–DUR5
 * and SCALE2 in shared/PROTOCOL.md):
 * - on load, applies the stored state and then the logged updates, before it starts logging;
 * - logs every update of a loaded document, a client's or the server's own, and lets no
 *   acknowledgement leave before its update is on disk: where the log appends inline (SQLite),
 *   in the Y.Doc's `update` event, the client updates of one event-loop turn in one commit
 *   (server/sync/group-commit.ts); where it appends asynchronously only (PostgreSQL), a client's
 *   update in `beforeSync`, before Hocuspocus applies it, and a server-side write without
 *   waiting, which `settled()` then waits for (server/sync/append-before-apply.ts);
 * - compacts (writes the full state and deletes the log entries it covers, in one transaction)
 *   in Hocuspocus's debounced store, when the log passes `limits`, and before the document is
 *   unloaded.
 *
 * Its `beforeSync` runs after every hook that can refuse a sync message (NotesGuard): an update
 * refused there never reaches the log, and a failed append lets NotesGuard forget its judgement
 * (`onUnjudged`).
 */
export class Persistence implements Extension {
  extensionName = 'TandemPersistence';
  priority = extensionPriority.persistence;

  private readonly tails = new WeakMap<Document, LogTail>();
  private readonly log: UpdateLog;
  private readonly onError: (error: unknown) => void;
  private readonly fresh?: FreshStates;
  /** The backend's way of getting updates into the log. */
  private readonly writes: LogWrites;
  /**
   * Only where the writes have one (a client update held for its write-back, PostgreSQL):
   * Hocuspocus chains the hook of every extension that has it on each message.
   */
  readonly afterHandleMessage?: (payload: afterHandleMessagePayload) => Promise<void>;

  constructor(options: PersistenceOptions) {
    this.log = options.log;
    this.onError = options.onError;
    this.fresh = options.fresh;
    const onError = options.onError;
    const limits = options.limits ?? defaultCompactionLimits;
    const common = {
      onError,
      onUnjudged: options.onUnjudged ?? (() => {}),
      logged: (document: Document, tail: LogTail) => compactWhenFull(document, tail, { limits, compact: () => this.compact(document), onError }),
    };
    const inline = options.log.inline;
    const writes: LogWrites = inline ? new GroupCommit({ ...common, appends: inline }) : new AppendBeforeApply({ ...common, log: options.log, writeBacks: options.writeBacks });
    this.writes = writes;
    const afterHandleMessage = writes.afterHandleMessage?.bind(writes);
    if (afterHandleMessage) this.afterHandleMessage = (payload) => afterHandleMessage(payload, this.tails.get(payload.document));
  }

  async onLoadDocument({ documentName, document }: onLoadDocumentPayload): Promise<void> {
    const tail = loadStored(document, await this.log.read(documentName), { onError: this.onError, fresh: this.fresh });
    this.tails.set(document, tail);
    this.writes.loaded(document, tail);
  }

  beforeSync(payload: beforeSyncPayload): Promise<void> {
    return this.writes.beforeSync(payload, this.tails.get(payload.document));
  }

  /** Resolves once every server-side write made so far is on disk; rejects if one could not be written. The API awaits it before it answers. */
  settled(): Promise<void> {
    return this.writes.settled();
  }

  async onStoreDocument({ document }: onStoreDocumentPayload): Promise<void> {
    await this.compact(document);
  }

  /** A failure keeps the document in memory (Hocuspocus unloads nothing whose hook threw). */
  async beforeUnloadDocument({ document }: beforeUnloadDocumentPayload): Promise<void> {
    this.writes.commit();
    await this.writes.drained();
    const tail = this.tails.get(document);
    if (tail && (tail.updates > 0 || tail.unlogged.length > 0)) await document.saveMutex.runExclusive(() => this.compact(document));
  }

  async onDestroy(): Promise<void> {
    this.writes.commit();
  }

  /**
   * Writes the full state and deletes the log entries it covers. The sequence number is read in
   * the same synchronous stretch as the state is encoded, so every update up to it is in the
   * state and an update logged while the write is under way stays in the log.
   */
  private async compact(document: Document): Promise<void> {
    this.writes.commit();
    const tail = this.tails.get(document);
    if (!tail || document.isDestroyed) return;
    const { lastSeq, updates, bytes } = tail;
    const covered = new Set(tail.unlogged);
    const state = Y.encodeStateAsUpdate(document);
    await this.log.compact(document.name, state, lastSeq);
    tail.updates -= updates;
    tail.bytes -= bytes;
    // The state holds the updates whose append had failed: they need no entry any more.
    tail.unlogged = tail.unlogged.filter((update) => !covered.has(update));
  }
}
