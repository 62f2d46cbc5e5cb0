import * as Y from 'yjs';
import { notesParts } from '../../shared/doc-layout.ts';
import { checkNotesChange, snapshotNotes, type NotesEntry, type NotesRefusal, type NotesWriter } from '../../shared/notes-rules.ts';

export type NotesVerdict =
  | { ok: true }
  | { ok: false; kind: 'refused'; refusal: NotesRefusal }
  /** The update names changes the server has not got (or does not parse): it cannot be judged. */
  | { ok: false; kind: 'incomplete'; message: string };

/**
 * A private copy of a live notes document, with its records parsed, on which the guard tries
 * each update a client sends before Hocuspocus applies it to the live document.
 *
 * Copying and parsing the whole document for every update would cost tens of milliseconds
 * for a few hundred records, so the copy is kept: every update of the live document is applied
 * to it too, and only the records an update touches are parsed again. An update the guard
 * accepts is applied to the copy first and to the live document a moment later (applying it
 * twice is a no-op in Yjs); after an update it refuses, the copy is made afresh from the live
 * document, which never got it.
 */
export class NotesShadow {
  private ydoc!: Y.Doc;
  private entries!: Map<string, NotesEntry>;
  /** While an update is judged: the entry each touched record had before it (undefined: none). */
  private journal: Map<string, NotesEntry | undefined> | null = null;

  constructor(private readonly live: Y.Doc) {
    this.rebuild();
    live.on('update', (update: Uint8Array) => Y.applyUpdate(this.ydoc, update));
    live.on('destroy', () => this.ydoc.destroy());
  }

  /** Whether `writer` may make the change `update` makes; leaves the copy with it only if so. */
  judge(update: Uint8Array, writer: NotesWriter): NotesVerdict {
    const journal = new Map<string, NotesEntry | undefined>();
    this.journal = journal;
    try {
      Y.applyUpdate(this.ydoc, update);
    } catch {
      this.rebuild();
      return { ok: false, kind: 'incomplete', message: 'The update is malformed.' };
    } finally {
      this.journal = null;
    }
    // Structs or deletions whose dependencies are missing would wait in the store and be
    // integrated by some later update, maybe another writer's, judged by that writer's
    // rights: so nothing may wait.
    const { pendingStructs, pendingDs } = this.ydoc.store;
    if (pendingStructs !== null || pendingDs !== null) {
      this.rebuild();
      return { ok: false, kind: 'incomplete', message: 'The update depends on changes the server has not received.' };
    }
    // Only the records the update touched can differ, so only they are compared.
    const before = new Map<string, NotesEntry>();
    const after = new Map<string, NotesEntry>();
    for (const [key, entry] of journal) {
      if (entry) before.set(key, entry);
      const now = this.entries.get(key);
      if (now) after.set(key, now);
    }
    const refusal = checkNotesChange(before, after, writer);
    if (refusal === null) return { ok: true };
    this.rebuild();
    return { ok: false, kind: 'refused', refusal };
  }

  private rebuild(): void {
    this.ydoc?.destroy();
    const ydoc = new Y.Doc();
    Y.applyUpdate(ydoc, Y.encodeStateAsUpdate(this.live));
    this.ydoc = ydoc;
    this.entries = new Map(snapshotNotes(ydoc));
    const annotations = notesParts(ydoc).annotations;
    annotations.observeDeep((events) => {
      const touched = new Set<string>();
      for (const event of events) {
        if (event.path.length > 0) touched.add(String(event.path[0]));
        else for (const key of event.changes.keys.keys()) touched.add(key);
      }
      for (const key of touched) {
        if (this.journal && !this.journal.has(key)) this.journal.set(key, this.entries.get(key));
        const entry = snapshotNotes(ydoc, [key]).get(key);
        if (entry) this.entries.set(key, entry);
        else this.entries.delete(key);
      }
    });
  }
}
