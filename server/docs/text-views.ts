import * as Y from 'yjs';
import { createHash } from 'node:crypto';
import type { Hocuspocus } from '@hocuspocus/server';
import type { Store } from '../store/store.ts';
import type { StoredDocument } from '../store/update-log.ts';
import { isDocumentLoading } from '../sync/hocuspocus-internals.ts';
import { DerivedCache, liveVersion } from '../work/derived-cache.ts';
import { workPool } from '../work/work-pool.ts';
import type { WorkTasks } from '../work/work-tasks.ts';
import type { TextState } from './read-text-views.ts';
import type { SearchEntry } from '../store/doc-search.ts';
import { ownImages } from './own-images.ts';

/**
 * What the API reads of a text document — its blocks and its Markdown (one reading), its HTML and
 * Word exports (LIMIT10, CAT5) — derived in the work pool's threads from the document's state,
 * and kept per version, so readers of an unchanged document share one reading. The event loop
 * only fetches the state and hands it over: a stored document goes as it is stored, and its
 * reading for shape (SHAPE5) and merging happen in the thread too. The version of a loaded
 * document is counted by its updates; a stored one is keyed by its bytes.
 */

const derived = new DerivedCache(64);

/**
 * The document's title as shown, and the JSON text of its `blocks` (BlockView[]), as `GET
 * /api/docs/:id` and a claim answer them.
 */
export async function textBlocksJson(hocuspocus: Hocuspocus, store: Store, name: string): Promise<{ title: string; blocks: string }> {
  const { title, blocks } = await derive(hocuspocus, store, name, 'textViews');
  return { title, blocks };
}

/** The document's text as Markdown (its pending deletes left out). */
export async function textMarkdown(hocuspocus: Hocuspocus, store: Store, name: string): Promise<string> {
  return (await derive(hocuspocus, store, name, 'textViews')).markdown;
}

/**
 * CAT5: the document's text as a standalone HTML page. IMG3: the document's own images go into
 * the file (as into a Word document's); assets never change under their id, so the ids kept
 * stand for the images in the key of the reading.
 */
export async function textHtml(hocuspocus: Hocuspocus, store: Store, name: string, docId: string): Promise<string> {
  const images = await ownImages(store, docId);
  return derive(hocuspocus, store, name, 'textHtml', { key: Object.keys(images).join(','), input: { images } });
}

/** CAT5: the document's text as a Word document. */
export async function textDocx(hocuspocus: Hocuspocus, store: Store, name: string, docId: string): Promise<Uint8Array> {
  const images = await ownImages(store, docId);
  return derive(hocuspocus, store, name, 'textDocx', { key: Object.keys(images).join(','), input: { images } });
}

type TextTask = 'textViews' | 'textHtml' | 'textDocx';
/** What a task reads besides the document, and what tells that apart in the key of its reading. */
type Extra = { key: string; input: Record<string, unknown> };
type Derived<K extends TextTask> = Awaited<ReturnType<WorkTasks[K]>>;

async function derive<K extends TextTask>(hocuspocus: Hocuspocus, store: Store, name: string, task: K, extra?: Extra): Promise<Derived<K>> {
  const reading = extra ? `${task}+${createHash('sha256').update(extra.key).digest('base64url')}` : task;
  const run = (input: TextState) => workPool().run(task, { ...input, ...extra?.input }) as Promise<Derived<K>>;
  const live = hocuspocus.documents.get(name);
  if (live && !isDocumentLoading(hocuspocus, name)) {
    return derived.get(`${reading}:${liveVersion(live)}`, () => run({ live: Y.encodeStateAsUpdate(live) }));
  }
  const connection = isDocumentLoading(hocuspocus, name) ? await hocuspocus.openDirectConnection(name) : null;
  try {
    if (connection?.document) {
      const state = Y.encodeStateAsUpdate(connection.document);
      return await derived.get(`${reading}:${await storedKey({ state, updates: [], lastSeq: 0 })}`, () => run({ live: state }));
    }
    const stored = await store.updates.read(name);
    return await derived.get(`${reading}:${await storedKey(stored)}`, () => run({ stored }));
  } finally {
    await connection?.disconnect();
  }
}

/**
 * Builds a new text document's state in the work pool and keeps the views built with it, under
 * the key of that state stored alone, which is what the store holds until someone edits it.
 * Answers the state, the client ids it holds (read in the thread: decoding a large state for
 * them held the event loop for 200–300 ms) and what the search index keeps of it (CAT2), read in
 * the same task.
 */
export async function importText(input: { title: string; markdown: string }): Promise<{ state: Uint8Array; clients: number[]; search: SearchEntry }> {
  const { state, clients, views, search } = await workPool().run('importText', { title: input.title, markdown: input.markdown });
  void derived.get(`textViews:${await storedKey({ state, updates: [], lastSeq: 0 })}`, () => Promise.resolve(views));
  return { state, clients, search };
}

/**
 * The SHA-256 of what is stored, each part with its length, so that no two different stores share
 * a key. Hashed `hashSliceBytes` at a time, a turn of the event loop each: in one go, a 4.7 MB
 * state held the loop for 8–24 ms. (`crypto.subtle.digest` spends longer than that on the loop
 * copying its input before it hashes on the thread pool.)
 */
async function storedKey(stored: StoredDocument): Promise<string> {
  const hash = createHash('sha256');
  let sinceTurn = 0;
  for (const part of [stored.state ?? new Uint8Array(0), ...stored.updates]) {
    hash.update(`${part.length}:`);
    for (let start = 0; start < part.length; start += hashSliceBytes) {
      const slice = part.subarray(start, start + hashSliceBytes);
      hash.update(slice);
      sinceTurn += slice.length;
      if (sinceTurn >= hashSliceBytes) {
        sinceTurn = 0;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }
  return hash.digest('base64url');
}

/** Bytes hashed in one turn of the event loop (about a millisecond). */
const hashSliceBytes = 512 * 1024;
