/**
 * What a data dir's SQLite file holds for a document, read through a handle of its own, as a
 * restarted server would read it: the stored state, then the logged updates in order.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import * as Y from 'yjs';
import { applyStored } from '../../server/store/update-log.ts';
import { logPrefixes } from './log-prefixes.ts';

export interface OnDiskReader {
  /** The document `name` as the file holds it at this moment (state and log read in one transaction). */
  docOf(name: string): Y.Doc;
  close(): void;
}

/** A read-only handle on `dataDir`'s file whose statements are prepared once, for reading many times. */
export function openOnDiskReader(dataDir: string): OnDiskReader {
  const db = new Database(join(dataDir, 'tandem.sqlite'), { readonly: true });
  const selectState = db.prepare<[string], { data: Buffer }>('SELECT data FROM documents WHERE name = ?');
  const selectLog = db.prepare<[string], { data: Buffer }>('SELECT data FROM update_log WHERE name = ? ORDER BY seq');
  const read = db.transaction((name: string) => ({
    state: selectState.get(name)?.data ?? null,
    updates: selectLog.all(name).map((row) => row.data),
  }));
  return {
    docOf(name) {
      const ydoc = new Y.Doc();
      applyStored(ydoc, { ...read(name), lastSeq: 0 });
      return ydoc;
    },
    close: () => db.close(),
  };
}

/** The document `name` as `dataDir`'s file holds it right now. */
export function docOnDisk(dataDir: string, name: string): Y.Doc {
  const reader = openOnDiskReader(dataDir);
  try {
    return reader.docOf(name);
  } finally {
    reader.close();
  }
}

/** Every state of the document `name` that a crash could leave in `dataDir`'s file as it is now (see log-prefixes.ts). */
export function prefixesOnDisk(dataDir: string, name: string): Y.Doc[] {
  const db = new Database(join(dataDir, 'tandem.sqlite'), { readonly: true });
  try {
    const state = db.prepare<[string], { data: Buffer }>('SELECT data FROM documents WHERE name = ?').get(name)?.data ?? null;
    const log = db.prepare<[string], { data: Buffer }>('SELECT data FROM update_log WHERE name = ? ORDER BY seq').all(name);
    return logPrefixes(state, log.map((row) => row.data));
  } finally {
    db.close();
  }
}
