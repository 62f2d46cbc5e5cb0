import * as Y from 'yjs';
import type { Node } from 'prosemirror-model';
import { docName, docParts, type DocKind } from '../../shared/model/doc-layout.ts';
import { writeInitialContent } from '../../shared/model/doc-content.ts';
import { markdownToDoc } from '../../shared/model/markdown.ts';
import { withBlockIds } from '../../shared/model/block-ids.ts';
import { schema } from '../../shared/model/schema.ts';
import { importOrigin } from '../../shared/model/origins.ts';
import { randomId } from '../../shared/model/ids.ts';
import type { DocRecord, Store } from '../store/store.ts';
import { normalizePage } from '../../shared/page/page-model.ts';
import { newElementId } from '../../shared/page/page-source.ts';
import { serverPageTools } from '../pages/page-tools.ts';
import { refuseShape } from '../pages/page-work.ts';
import { workPool } from '../work/work-pool.ts';
import { indexDocState } from './search-index.ts';
import type { SearchEntry } from '../store/doc-search.ts';
import { importText } from './text-views.ts';

/** A document to create: a text document from Markdown, or a page from HTML. */
export type NewDoc =
  | { kind: 'text'; title: string; markdown: string }
  | { kind: 'page'; title: string; html: string };

/** The initial state of the text Y.Doc (`<id>`) of a new document; a page's HTML is stored sanitized, with element ids (PAGE1). */
export function buildInitialState(input: NewDoc): Uint8Array {
  const ydoc = new Y.Doc();
  try {
    writeNewDoc(ydoc, input, input.kind === 'text' ? markdownToDoc(input.markdown) : null);
    return Y.encodeStateAsUpdate(ydoc);
  } finally {
    ydoc.destroy();
  }
}

/** Writes a new document into the empty `ydoc`, as `buildInitialState` describes; `content` is a text document's Markdown parsed. */
export function writeNewDoc(ydoc: Y.Doc, input: NewDoc, content: Node | null): void {
  if (content) writeInitialContent(ydoc, newTextContent(content), importOrigin);
  ydoc.transact(() => {
    const parts = docParts(ydoc);
    parts.meta.set('title', input.title);
    parts.meta.set('kind', input.kind satisfies DocKind);
    if (input.kind === 'page') parts.html.insert(0, normalizePage(serverPageTools(), input.html, newElementId));
  }, importOrigin);
}

/** The content a new text document is written with: its parsed Markdown, or for none `oneEmptyParagraph`. */
export function newTextContent(parsed: Node): Node {
  return parsed.childCount > 0 ? parsed : oneEmptyParagraph();
}

/**
 * What an empty text document starts as: one empty paragraph, as in every word processor, so
 * that the first click and the first keystroke land in a text block (a bare document has no
 * place for a caret).
 */
function oneEmptyParagraph(): Node {
  return withBlockIds(schema.node('doc', null, [schema.node('paragraph')]));
}

/**
 * Stores a new document, content included, before anyone can connect to it. Its state is built
 * in the work pool (LIMIT10), a text document's views with it (server/docs/text-views.ts); a
 * page whose HTML breaks LIMIT8 or LIMIT9 is refused (422) before that, and nothing is stored.
 */
export async function createDoc(store: Store, input: NewDoc, now = Date.now(), id = randomId(10), writer?: Writer): Promise<DocRecord> {
  if (input.kind === 'page') refuseShape(input.html);
  const text = input.kind === 'text' ? await importText(input) : null;
  const state = text ? text.state : await workPool().run('initialState', input);
  // WHO6: the imported text is the creator's, claimed before anyone can read it.
  if (writer) await claimState(store, id, text ? text.clients : clientsOf(state), writer);
  const record: DocRecord = { id, title: input.title, kind: input.kind, createdAt: now, updatedAt: now, deletedAt: null };
  await store.createDoc(record, new Map([[docName(record.id), state]]));
  // The catalogue keeps the title as shown (CAT1): without a title, the first line of the text.
  // A text's entry was read with its state; a page's is read from its state now.
  const { title } = text ? await indexed(store, record.id, text.search) : await indexDocState(store, record.id, state);
  if (title !== record.title) {
    await store.updateDoc(record.id, { title, updatedAt: now });
    return { ...record, title };
  }
  return record;
}

/** The person a new document's text is attributed to: the token's subject and name. */
export interface Writer {
  subject: string;
  name: string;
}

/** The client ids of the structs in `state`: a page's is small; a text's come from its import task. */
function clientsOf(state: Uint8Array): number[] {
  return [...Y.parseUpdateMeta(state).to.keys()];
}

async function claimState(store: Store, docId: string, clients: number[], writer: Writer): Promise<void> {
  const author = { kind: 'person' as const, name: writer.name };
  await store.authorship.claim(docId, clients.map((client) => ({ client, subject: writer.subject, author })));
}

async function indexed(store: Store, docId: string, entry: SearchEntry): Promise<SearchEntry> {
  await store.search.index(docId, entry);
  return entry;
}
