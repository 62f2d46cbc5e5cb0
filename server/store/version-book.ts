import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { VersionReason } from '../../shared/wire/versions.ts';

/**
 * The versions of each document (HIST1, HIST2): the whole Yjs state of its text document at the
 * time, kept apart from the document itself so that a document loads as fast with a thousand
 * versions as with none, and so that garbage collection of the live document never reaches an
 * old version. SQLite (sqlite-versions.ts) and PostgreSQL (pg-versions.ts) implement it; a
 * document's versions go when the trash purges it.
 */
export interface StoredVersion {
  id: string;
  docId: string;
  /** Empty unless a person named it. */
  name: string;
  reason: VersionReason;
  createdAt: number;
  byName: string;
}

export interface NewVersion extends StoredVersion {
  /** `Y.encodeStateAsUpdate` of the text document. */
  state: Uint8Array;
  /** `Y.encodeSnapshot` of the same state: what tells an unchanged document (HIST2). */
  snapshot: Uint8Array;
}

export interface VersionBook {
  add(version: NewVersion): Promise<void>;
  /** Every version of `docId`, newest first. */
  list(docId: string): Promise<StoredVersion[]>;
  /** The Yjs state of one version, or null when `docId` has no such version. */
  state(docId: string, versionId: string): Promise<Uint8Array | null>;
  /** The Markdown kept of a version once it was first read (HIST1), or null. */
  markdown(docId: string, versionId: string): Promise<string | null>;
  /** Keeps the Markdown of a version, which never changes, for its later reads. */
  keepMarkdown(docId: string, versionId: string, markdown: string): Promise<void>;
  /** The snapshot of the newest version of `docId`, or null when it has none. */
  latestSnapshot(docId: string): Promise<Uint8Array | null>;
  /** Removes the versions `versionIds` of `docId` (HIST3's thinning). */
  remove(docId: string, versionIds: readonly string[]): Promise<void>;
}

/** A version's state as stored: raw deflate (Yjs updates hold long runs of repeated bytes). */
export function packState(state: Uint8Array): Buffer {
  return deflateRawSync(state);
}

export function unpackState(packed: Uint8Array): Uint8Array {
  return new Uint8Array(inflateRawSync(packed));
}
