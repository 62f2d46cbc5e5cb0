import type * as Y from 'yjs';
import type { Hocuspocus } from '@hocuspocus/server';
import { docName, runsParts } from '../../shared/model/doc-layout.ts';
import { serverOrigin } from '../../shared/model/origins.ts';
import { withDocument } from '../docs/with-document.ts';
import type { AsideRecord } from '../../shared/wire/asides.ts';

/**
 * ASIDE6: writes asides into a document's read-only `<id>/runs` Y.Doc, which every browser on
 * the document already watches, so an answer streams to all of them. Writes of one document run
 * one after the other, in the order they were asked for.
 */
export class AsideMirror {
  private readonly turns = new Map<string, Promise<void>>();

  constructor(
    private readonly hocuspocus: Hocuspocus,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Puts `record` (a copy of it, as it is now) under its id. */
  write(docId: string, record: AsideRecord): Promise<void> {
    const value = { ...record, askedBy: { ...record.askedBy } };
    return this.enqueue(docId, (ydoc) => runsParts(ydoc).asides.set(value.asideId, value));
  }

  /**
   * Puts the ended `record` back under its id when the map holds another value there: with
   * several instances, an answer's chunk mirrored on one and the question's end (its timeout,
   * or the answer's last chunk) on another may reach the map as concurrent sets, which Yjs
   * orders by client id, not by time, so the earlier one may win. Written again once both have
   * arrived, the ended record is the last set on every replica. Nothing is written when the id
   * is no longer in the map (the run ended, ASIDE6) or already holds the record.
   */
  settle(docId: string, record: AsideRecord): Promise<void> {
    const value = { ...record, askedBy: { ...record.askedBy } };
    return this.enqueue(docId, (ydoc) => {
      const asides = runsParts(ydoc).asides;
      if (!asides.has(value.asideId) || sameJson(asides.get(value.asideId), value)) return;
      asides.set(value.asideId, value);
    });
  }

  private enqueue(docId: string, change: (ydoc: Y.Doc) => void): Promise<void> {
    const previous = this.turns.get(docId) ?? Promise.resolve();
    const turn = previous.then(async () => {
      await withDocument(this.hocuspocus, docName(docId, 'runs'), (ydoc) => ydoc.transact(() => change(ydoc), serverOrigin));
    }).catch(this.onError);
    this.turns.set(docId, turn);
    void turn.then(() => {
      if (this.turns.get(docId) === turn) this.turns.delete(docId);
    });
    return turn;
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Drops from a runs Y.Doc the asides of every run not in `claimedRunIds` (ASIDE6: asides live while their run is claimed). */
export function dropFinishedAsides(runsYdoc: Y.Doc, claimedRunIds: ReadonlySet<string>): void {
  const asides = runsParts(runsYdoc).asides;
  const gone = [...asides.entries()].filter(([, value]) => !claimedRunIds.has(runIdOf(value))).map(([id]) => id);
  if (gone.length === 0) return;
  runsYdoc.transact(() => {
    for (const id of gone) asides.delete(id);
  }, serverOrigin);
}

function runIdOf(value: unknown): string {
  return typeof value === 'object' && value !== null && typeof (value as { runId?: unknown }).runId === 'string' ? (value as { runId: string }).runId : '';
}
