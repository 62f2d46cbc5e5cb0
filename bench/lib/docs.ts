import * as Y from 'yjs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { buildInitialState } from '../../server/docs/create-doc.ts';
import { openSqliteStore } from '../../server/store/sqlite-store.ts';
import { docName, docParts } from '../../shared/model/doc-layout.ts';
import { randomId } from '../../shared/model/ids.ts';
import { sqliteSchema } from './server-spec.ts';

const words = (
  'the a of and to in is that it was for on are as with his they at be this from have or by one had not but ' +
  'what all were when we there can an your which their said if do will each about how up out them then she ' +
  'many some so these would other into has more her two like him see time could no make than first been its ' +
  'who now people my made over did down only way find use may water long little very after words called just'
).split(' ');

/** `count` paragraphs of about `length` characters of plain words, the same for the same seed. */
export function paragraphsMarkdown(count: number, length = 400, seed = 1): string {
  let state = seed >>> 0 || 1;
  const next = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0);
  const paragraphs: string[] = [];
  for (let p = 0; p < count; p++) {
    let text = '';
    while (text.length < length) text += (text ? ' ' : '') + words[next() % words.length];
    paragraphs.push(text.charAt(0).toUpperCase() + text.slice(1) + '.');
  }
  return paragraphs.join('\n\n') + '\n';
}

export interface SizedDoc {
  markdown: string;
  /** The initial state Tandem would store for it (`Y.encodeStateAsUpdate` of the text Y.Doc). */
  state: Uint8Array;
  paragraphs: number;
}

/**
 * Markdown whose Tandem document state is within a few percent of `targetBytes`, built as the
 * server builds a new document. The last paragraph ends with `marker` when given.
 */
export function docOfStateSize(targetBytes: number, marker = ''): SizedDoc {
  const build = (paragraphs: number) => {
    const markdown = paragraphsMarkdown(paragraphs) + (marker ? `\n${marker}\n` : '');
    return { markdown, state: buildInitialState({ kind: 'text', title: 'Bench', markdown }), paragraphs };
  };
  const probe = build(Math.max(1, Math.round(targetBytes / 450)));
  if (Math.abs(probe.state.byteLength - targetBytes) / targetBytes < 0.03) return probe;
  return build(Math.max(1, Math.round((probe.paragraphs * targetBytes) / probe.state.byteLength)));
}

/**
 * Adds documents with the given initial states to Tandem's store in `dataDir`, bypassing the
 * HTTP API and its size limits. The server must not be running on `dataDir` meanwhile.
 */
export async function seedTandemStore(dataDir: string, states: readonly Uint8Array[]): Promise<string[]> {
  const store = openSqliteStore(dataDir);
  try {
    const ids: string[] = [];
    for (const state of states) {
      const id = randomId(10);
      const now = Date.now();
      await store.createDoc({ id, title: 'Bench', kind: 'text', createdAt: now, updatedAt: now }, new Map([[docName(id), state]]));
      ids.push(id);
    }
    return ids;
  } finally {
    await store.close();
  }
}

/** The SQLite file of `@hocuspocus/extension-sqlite` in a `bare-sqlite` server's data dir. */
export function hocuspocusSqlitePath(dataDir: string): string {
  return join(dataDir, 'hocuspocus.sqlite');
}

/** Writes documents into a `bare-sqlite` server's table, as it would store them. */
export function seedHocuspocusSqlite(dataDir: string, docs: ReadonlyMap<string, Uint8Array>): void {
  const db = new Database(hocuspocusSqlitePath(dataDir));
  try {
    db.exec(sqliteSchema);
    const upsert = db.prepare('INSERT INTO "documents" ("name", "data") VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET data = excluded.data');
    for (const [name, state] of docs) upsert.run(name, Buffer.from(state));
  } finally {
    db.close();
  }
}

/** The SQLite file of Tandem's store. */
export function tandemSqlitePath(dataDir: string): string {
  return join(dataDir, 'tandem.sqlite');
}

/**
 * The Y.XmlText inside the paragraph at `index` of the text, where a person's typing lands
 * (y-prosemirror keeps a paragraph's text in one Y.XmlText while it has no marks).
 */
export function paragraphText(ydoc: Y.Doc, index = 0): Y.XmlText {
  const block = docParts(ydoc).content.get(index);
  if (!(block instanceof Y.XmlElement)) throw new RangeError(`no block at ${index}`);
  const text = block.toArray().find((child): child is Y.XmlText => child instanceof Y.XmlText);
  if (!text) throw new RangeError(`block ${index} holds no text`);
  return text;
}

/** Adds an empty paragraph (as the editor makes one) at the end of the text; returns its Y.XmlText. */
export function appendEmptyParagraph(ydoc: Y.Doc, id = 'bench-' + randomId(6)): Y.XmlText {
  const paragraph = new Y.XmlElement('paragraph');
  const ytext = new Y.XmlText();
  ydoc.transact(() => {
    paragraph.setAttribute('id', id);
    paragraph.insert(0, [ytext]);
    docParts(ydoc).content.push([paragraph]);
  });
  return ytext;
}
