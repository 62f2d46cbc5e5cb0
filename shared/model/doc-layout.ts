import * as Y from 'yjs';
import { statedVersion } from './schema-versions.ts';

/**
 * The Y.Doc layout, defined once. Every document of Tandem is three Hocuspocus documents:
 *
 * | name          | holds                                        |
 * |---------------|----------------------------------------------|
 * | `<id>`        | the text (`content`) and metadata (`meta`)   |
 * | `<id>/notes`  | annotations (`annotations`)                  |
 * | `<id>/runs`   | the server's mirror of the run store (`runs`) and the asides of the claimed run (`asides`) |
 *
 * No other file names a top-level type by string.
 */

export type DocKind = 'text' | 'page';

export interface DocMeta {
  title: string;
  kind: DocKind;
  /** VER5: the layout's schema version (`meta.v`; 1 without one), shared/model/schema-versions.ts. */
  layout: number;
}

/** Every top-level type of a document's text Y.Doc (`<id>`). */
export function docParts(ydoc: Y.Doc) {
  return {
    /** The rich text, bound to ProseMirror by y-prosemirror. */
    content: ydoc.getXmlFragment('content'),
    /** Title and kind. */
    meta: ydoc.getMap<unknown>('meta'),
    /** The source of a `page` document. */
    html: ydoc.getText('html'),
  };
}

/** Every top-level type of a document's annotations Y.Doc (`<id>/notes`). */
export function notesParts(ydoc: Y.Doc) {
  return {
    annotations: ydoc.getMap<unknown>('annotations'),
  };
}

/** Every top-level type of a document's runs Y.Doc (`<id>/runs`), written by the server only. */
export function runsParts(ydoc: Y.Doc) {
  return {
    runs: ydoc.getMap<unknown>('runs'),
    /** The asides of the run an agent holds, by aside id (ASIDE6); dropped once the run is no longer claimed. */
    asides: ydoc.getMap<unknown>('asides'),
  };
}

const partsOf: Record<DocPart, (ydoc: Y.Doc) => object> = {
  text: docParts,
  notes: notesParts,
  runs: runsParts,
};

const namesOf = new Map<DocPart, ReadonlySet<string>>();

/**
 * SHAPE1: the names of the top-level types of one part, read from the functions above (on a
 * scratch Y.Doc), so that nothing else spells them.
 */
export function topLevelNames(part: DocPart): ReadonlySet<string> {
  let names = namesOf.get(part);
  if (!names) {
    const scratch = new Y.Doc();
    partsOf[part](scratch);
    names = new Set(scratch.share.keys());
    scratch.destroy();
    namesOf.set(part, names);
  }
  return names;
}

export function readMeta(ydoc: Y.Doc): DocMeta {
  const meta = docParts(ydoc).meta;
  const title = meta.get('title');
  const kind = meta.get('kind');
  return {
    title: typeof title === 'string' ? title : '',
    kind: kind === 'page' ? 'page' : 'text',
    layout: statedVersion(meta.toJSON()) ?? 1,
  };
}

export type DocPart = 'text' | 'notes' | 'runs';

const partSuffix: Record<Exclude<DocPart, 'text'>, string> = {
  notes: '/notes',
  runs: '/runs',
};

/** Document ids are short, URL-safe and never contain `/`. */
export const docIdPattern = /^[A-Za-z0-9_-]{1,64}$/;

export function isDocId(value: unknown): value is string {
  return typeof value === 'string' && docIdPattern.test(value);
}

/** DOC1: the Hocuspocus document name of one part of a document (`<id>`, `<id>/notes`, `<id>/runs`). */
export function docName(docId: string, part: DocPart = 'text'): string {
  return part === 'text' ? docId : docId + partSuffix[part];
}

/** Splits a Hocuspocus document name into its document id and part, or null if malformed. */
export function parseDocName(name: string): { docId: string; part: DocPart } | null {
  const [docId, suffix, ...rest] = name.split('/');
  if (rest.length > 0 || !isDocId(docId)) return null;
  if (suffix === undefined) return { docId, part: 'text' };
  if (suffix === 'notes' || suffix === 'runs') return { docId, part: suffix };
  return null;
}

/**
 * Any Yjs shared type (a map, an array, a text, an XML element or fragment), as Yjs's own
 * signatures name it: its event type parameter is invariant, so no narrower argument fits all.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Yjs's own name for any shared type
export type AnyYType = Y.AbstractType<any>;
