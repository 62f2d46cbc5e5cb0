import type * as Y from 'yjs';
import type { Hocuspocus } from '@hocuspocus/server';
import { docName, runsParts } from '../../shared/model/doc-layout.ts';
import { serverOrigin } from '../../shared/model/origins.ts';
import { withDocument } from '../docs/with-document.ts';
import type { RunRecord } from '../../shared/protocol/run-record.ts';
import { toRunRecord, type RunStore } from '../store/run-store.ts';
import { dropFinishedAsides } from './aside-mirror.ts';

/**
 * Makes a runs Y.Doc hold exactly `records` (one plain JSON value per run id), writing only what
 * differs, in one transaction with the server's origin. Returns whether anything changed.
 */
export function writeRunRecords(runsYdoc: Y.Doc, records: readonly RunRecord[]): boolean {
  dropFinishedAsides(runsYdoc, new Set(records.filter((record) => record.state === 'claimed').map((record) => record.runId)));
  const runs = runsParts(runsYdoc).runs;
  const wanted = new Map(records.map((record) => [record.runId, record]));
  const stale = [...runs.keys()].filter((id) => !wanted.has(id));
  const changed = records.filter((record) => JSON.stringify(runs.get(record.runId)) !== JSON.stringify(record));
  if (stale.length === 0 && changed.length === 0) return false;
  runsYdoc.transact(() => {
    for (const id of stale) runs.delete(id);
    for (const record of changed) runs.set(record.runId, record);
  }, serverOrigin);
  return true;
}

/**
 * RUN4: keeps each document's read-only `<id>/runs` Y.Doc a mirror of the run store. The
 * composition root calls `refresh` on the store's run-changed event (`RunStore.onRunChanged`), so
 * every committed change of a run is mirrored before the write resolves. Refreshes of one document run one after the other
 * and each reads the store inside its turn, so the mirror always ends at the latest stored
 * state, whatever order concurrent callers finish in.
 */
export class RunMirror {
  private readonly turns = new Map<string, Promise<void>>();

  constructor(private readonly hocuspocus: Hocuspocus, private readonly runs: RunStore) {}

  /** Resolves once the mirror of `docId` holds the stored state of every run of it. */
  refresh(docId: string): Promise<void> {
    const previous = this.turns.get(docId) ?? Promise.resolve();
    const turn = previous.catch(() => {}).then(() => this.write(docId));
    this.turns.set(docId, turn);
    const forget = () => {
      if (this.turns.get(docId) === turn) this.turns.delete(docId);
    };
    turn.then(forget, forget);
    return turn;
  }

  private async write(docId: string): Promise<void> {
    await withDocument(this.hocuspocus, docName(docId, 'runs'), async (ydoc) => {
      const records = (await this.runs.listRuns(docId)).map(toRunRecord);
      writeRunRecords(ydoc, records);
    });
  }
}
