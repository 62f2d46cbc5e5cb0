import * as Y from 'yjs';
import { notesParts } from '../../shared/model/doc-layout.ts';
import {
  checkNotesChange,
  heldInstructions,
  maxNotesDocBytes,
  maxNotesUpdateBytes,
  snapshotNotes,
  type HeldInstruction,
  type NotesClock,
  type NotesEntry,
  type NotesRefusal,
  type NotesWriter,
} from '../../shared/notes/notes-rules.ts';

export type NotesVerdict =
  /** `held`: instructions whose state or run the server must write back once the update is in (NOTES13). */
  | { ok: true; held: HeldInstruction[] }
  | { ok: false; kind: 'refused'; refusal: NotesRefusal }
  /** The update names changes the server has not got (or does not parse): it cannot be judged. */
  | { ok: false; kind: 'incomplete'; message: string };

export interface NotesLimits {
  /** NOTES12: the largest update, in bytes. */
  updateBytes: number;
  /** NOTES12: the largest document state an update may leave, in bytes. */
  docBytes: number;
}

const defaultLimits: NotesLimits = { updateBytes: maxNotesUpdateBytes, docBytes: maxNotesDocBytes };

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
 *
 * Besides the record rules, the copy enforces what concerns an update as a whole:
 * - [NOTES11] everything an update inserts lies inside the annotations map (no other top-level
 *   type, no content under one); deleting elsewhere is allowed, it only removes;
 * - [NOTES12] an update is at most `updateBytes`, and one that inserts anything may not leave
 *   the document's state larger than `docBytes`.
 */
export class NotesShadow {
  private ydoc!: Y.Doc;
  private entries!: Map<string, NotesEntry>;
  /** While an update is judged: the entry each touched record had before it (undefined: none). */
  private journal: Map<string, NotesEntry | undefined> | null = null;
  /**
   * At least the size of the copy's state, in bytes: exact after a rebuild, then grown by every
   * update applied (an update counted twice, or one that overwrites, only overestimates). Only
   * when it passes the limit is the state encoded to know for sure.
   */
  private bytesAtMost = 0;

  constructor(
    private readonly live: Y.Doc,
    private readonly limits: NotesLimits = defaultLimits,
  ) {
    this.rebuild();
    live.on('update', (update: Uint8Array) => {
      Y.applyUpdate(this.ydoc, update);
      this.bytesAtMost += update.length;
    });
    live.on('destroy', () => this.ydoc.destroy());
  }

  /** Whether `writer` may make the change `update` makes at `clock`; leaves the copy with it only if so. */
  judge(update: Uint8Array, writer: NotesWriter, clock: NotesClock): NotesVerdict {
    if (update.length > this.limits.updateBytes) {
      return refused('NOTES12', `An update to the notes may be at most ${this.limits.updateBytes} bytes.`);
    }
    const journal = new Map<string, NotesEntry | undefined>();
    let transaction: Y.Transaction | null = null;
    const capture = (tr: Y.Transaction) => (transaction = tr);
    this.journal = journal;
    this.ydoc.on('afterTransaction', capture);
    try {
      Y.applyUpdate(this.ydoc, update);
    } catch {
      this.rebuild();
      return { ok: false, kind: 'incomplete', message: 'The update is malformed.' };
    } finally {
      this.journal = null;
      this.ydoc.off('afterTransaction', capture);
    }
    // Structs or deletions whose dependencies are missing would wait in the store and be
    // integrated by some later update, maybe another writer's, judged by that writer's
    // rights: so nothing may wait.
    const { pendingStructs, pendingDs } = this.ydoc.store;
    if (pendingStructs !== null || pendingDs !== null) {
      this.rebuild();
      return { ok: false, kind: 'incomplete', message: 'The update depends on changes the server has not received.' };
    }
    this.bytesAtMost += update.length;
    const inserted = transaction === null ? 'none' : insertedWhere(transaction, notesParts(this.ydoc).annotations);
    const refusal =
      inserted === 'outside'
        ? { rule: 'NOTES11' as const, annotationId: '', message: 'Only the annotations may be written in the notes.' }
        : inserted === 'inside' && this.tooLarge()
          ? { rule: 'NOTES12' as const, annotationId: '', message: `The notes may hold at most ${this.limits.docBytes} bytes.` }
          : this.checkRecords(journal, writer, clock);
    if (refusal === null) return { ok: true, held: this.held(journal) };
    this.rebuild();
    return { ok: false, kind: 'refused', refusal };
  }

  private checkRecords(journal: Map<string, NotesEntry | undefined>, writer: NotesWriter, clock: NotesClock): NotesRefusal | null {
    const [before, after] = this.beforeAndAfter(journal);
    return checkNotesChange(before, after, writer, clock);
  }

  private held(journal: Map<string, NotesEntry | undefined>): HeldInstruction[] {
    const [before, after] = this.beforeAndAfter(journal);
    return heldInstructions(before, after);
  }

  /** Only the records the update touched can differ, so only they are compared. */
  private beforeAndAfter(journal: Map<string, NotesEntry | undefined>): [Map<string, NotesEntry>, Map<string, NotesEntry>] {
    const before = new Map<string, NotesEntry>();
    const after = new Map<string, NotesEntry>();
    for (const [key, entry] of journal) {
      if (entry) before.set(key, entry);
      const now = this.entries.get(key);
      if (now) after.set(key, now);
    }
    return [before, after];
  }

  private tooLarge(): boolean {
    if (this.bytesAtMost <= this.limits.docBytes) return false;
    this.bytesAtMost = Y.encodeStateAsUpdate(this.ydoc).length;
    return this.bytesAtMost > this.limits.docBytes;
  }

  private rebuild(): void {
    this.ydoc?.destroy();
    const ydoc = new Y.Doc();
    const state = Y.encodeStateAsUpdate(this.live);
    Y.applyUpdate(ydoc, state);
    this.ydoc = ydoc;
    this.bytesAtMost = state.length;
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

/**
 * Where the structs a transaction added lie: nowhere, all inside `root`'s subtree, or some
 * outside it (under another top-level type). Structs the garbage collector already replaced
 * (content inserted into something deleted) hold nothing and count for neither.
 */
function insertedWhere(transaction: Y.Transaction, root: unknown): 'none' | 'inside' | 'outside' {
  let where: 'none' | 'inside' = 'none';
  for (const [client, afterClock] of transaction.afterState) {
    const beforeClock = transaction.beforeState.get(client) ?? 0;
    if (afterClock <= beforeClock) continue;
    const structs = transaction.doc.store.clients.get(client) ?? [];
    for (let index = Y.findIndexSS(structs, beforeClock); index < structs.length && structs[index].id.clock < afterClock; index++) {
      const struct = structs[index];
      if (!(struct instanceof Y.Item)) continue;
      if (rootType(struct) !== root) return 'outside';
      where = 'inside';
    }
  }
  return where;
}

function rootType(item: Y.Item): unknown {
  let parent = item.parent;
  while (parent instanceof Y.AbstractType && parent._item !== null) parent = parent._item.parent;
  return parent instanceof Y.AbstractType ? parent : null;
}

function refused(rule: NotesRefusal['rule'], message: string): NotesVerdict {
  return { ok: false, kind: 'refused', refusal: { rule, annotationId: '', message } };
}
