import * as Y from 'yjs';
import type { Hocuspocus } from '@hocuspocus/server';
import { docName, docParts, type DocKind } from '../../shared/model/doc-layout.ts';
import { randomId } from '../../shared/model/ids.ts';
import { versionOrigin } from '../../shared/model/origins.ts';
import type { VersionChange, VersionReason } from '../../shared/wire/versions.ts';
import { authorResolver } from '../authorship/author-resolver.ts';
import type { ClientOwners } from '../authorship/client-owners.ts';
import { textPieces } from '../authorship/text-spans.ts';
import { writeCopies } from '../authorship/restored-text.ts';
import { docMarkdown } from '../docs/doc-markdown.ts';
import { readDocState } from '../docs/read-doc.ts';
import { withDocument } from '../docs/with-document.ts';
import type { StoredVersion } from '../store/version-book.ts';
import type { Store } from '../store/store.ts';
import { workPool } from '../work/work-pool.ts';
import { compareTexts } from './compare.ts';
import { restoreContent } from './restore-content.ts';
import { thinnedAway } from './retention.ts';

export interface VersionServiceDeps {
  store: Store;
  hocuspocus: Hocuspocus;
  owners: ClientOwners;
  now?: () => number;
}

/**
 * Version history (HIST1–HIST5): records a document's text as a version, reads one, compares two
 * and restores one. A version is the whole Yjs state of the text document, so reading one needs
 * nothing else, and the live document never changes for its history.
 */
export class VersionService {
  private readonly now: () => number;

  constructor(private readonly deps: VersionServiceDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Records the text of `docId` as it is now; `name` only for a named version. */
  async record(docId: string, reason: VersionReason, byName: string, name = ''): Promise<StoredVersion> {
    return this.write(docId, { docId, name, reason, byName }, await this.current(docId));
  }

  /** HIST2: `record`, unless the text is the newest version's already (never a version of an unchanged document); null then. */
  async recordIfChanged(docId: string, reason: VersionReason, byName: string): Promise<StoredVersion | null> {
    const current = await this.current(docId);
    const latest = await this.deps.store.versions.latestSnapshot(docId);
    if (latest && Y.equalSnapshots(Y.decodeSnapshot(latest), Y.decodeSnapshot(current.snapshot))) return null;
    return this.write(docId, { docId, name: '', reason, byName }, current);
  }

  private current(docId: string): Promise<{ state: Uint8Array; snapshot: Uint8Array }> {
    return readDocState(this.deps.hocuspocus, this.deps.store, docName(docId), (ydoc) => ({
      state: Y.encodeStateAsUpdate(ydoc),
      snapshot: Y.encodeSnapshot(Y.snapshot(ydoc)),
    }));
  }

  private async write(docId: string, fields: Omit<StoredVersion, 'id' | 'createdAt'>, current: { state: Uint8Array; snapshot: Uint8Array }): Promise<StoredVersion> {
    const { versions } = this.deps.store;
    const version: StoredVersion = { id: randomId(), createdAt: this.now(), ...fields };
    await versions.add({ ...version, ...current });
    if (version.reason === 'auto') await versions.remove(docId, thinnedAway(await versions.list(docId), this.now()));
    return version;
  }

  list(docId: string): Promise<StoredVersion[]> {
    return this.deps.store.versions.list(docId);
  }

  /** The Markdown of a version, as `GET /api/docs/:id/markdown` reads the text (in the work pool, once: it is kept); null for no such version. */
  async markdown(docId: string, kind: DocKind, versionId: string): Promise<string | null> {
    const { versions } = this.deps.store;
    const kept = await versions.markdown(docId, versionId);
    if (kept !== null) return kept;
    const state = await versions.state(docId, versionId);
    if (!state) return null;
    const markdown = kind === 'page' ? withVersionDoc(state, (ydoc) => docMarkdown(kind, ydoc)) : (await workPool().run('textViews', { live: state })).markdown;
    await versions.keepMarkdown(docId, versionId, markdown);
    return markdown;
  }

  /**
   * HIST5: the changes from version `fromId` to version `toId` (or the current text), each by
   * its writer; null when either version is not one of `docId`'s.
   */
  async compare(docId: string, fromId: string, toId: string | 'current'): Promise<VersionChange[] | null> {
    const { store, hocuspocus } = this.deps;
    const fromState = await store.versions.state(docId, fromId);
    const toState = toId === 'current' ? null : await store.versions.state(docId, toId);
    if (!fromState || (toId !== 'current' && !toState)) return null;
    const from = withVersionDoc(fromState, (ydoc) => textPieces(docParts(ydoc).content));
    const to = toState
      ? withVersionDoc(toState, (ydoc) => textPieces(docParts(ydoc).content))
      : await readDocState(hocuspocus, store, docName(docId), (ydoc) => textPieces(docParts(ydoc).content));
    // Read after both texts: every client id in them was claimed before its items were applied (WHO2).
    const authors = await authorResolver(store, docId);
    return compareTexts(authors.spans(from), authors.spans(to));
  }

  /**
   * HIST4: makes the text that of version `versionId` as one new change every peer receives,
   * after recording the text as it was (unless a version holds it already), so that restoring
   * the version before the restore takes it back. Answers the `restore` version recorded, or
   * null for no such version. The history after the restored version stays.
   */
  async restore(docId: string, versionId: string, byName: string): Promise<StoredVersion | null> {
    const { store, hocuspocus, owners } = this.deps;
    const state = await store.versions.state(docId, versionId);
    if (!state) return null;
    await this.recordIfChanged(docId, 'auto', byName);
    const version = new Y.Doc();
    try {
      Y.applyUpdate(version, state);
      await withDocument(hocuspocus, docName(docId), (live) =>
        writeCopies(owners, live, docId, () => live.transact(() => restoreContent(live, version), versionOrigin), (_client, ranges) => ranges),
      );
    } finally {
      version.destroy();
    }
    return this.record(docId, 'restore', byName);
  }
}

function withVersionDoc<T>(state: Uint8Array, read: (ydoc: Y.Doc) => T): T {
  const ydoc = new Y.Doc();
  try {
    Y.applyUpdate(ydoc, state);
    return read(ydoc);
  } finally {
    ydoc.destroy();
  }
}
