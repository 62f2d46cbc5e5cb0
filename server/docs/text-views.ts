import * as Y from 'yjs';
import type { Hocuspocus } from '@hocuspocus/server';
import type { Store } from '../store/store.ts';
import { isDocumentLoading } from '../sync/hocuspocus-internals.ts';
import { DerivedCache, liveVersion, sha256 } from '../work/derived-cache.ts';
import { workPool } from '../work/work-pool.ts';
import type { WorkTasks } from '../work/work-tasks.ts';

/**
 * What the API reads of a text document, its blocks and its Markdown (LIMIT10): derived in the
 * work pool's threads from the document's state, and kept per version, so readers of an
 * unchanged document share one reading. The version of a loaded document is counted by its
 * updates; a stored one is keyed by its bytes.
 */

const derived = new DerivedCache(64);

/**
 * The document's title as its text Y.Doc holds it, and the JSON text of its `blocks`
 * (BlockView[]), as `GET /api/docs/:id` and a claim answer them.
 */
export function textBlocksJson(hocuspocus: Hocuspocus, store: Store, name: string): Promise<{ title: string; blocks: string }> {
  return derive(hocuspocus, store, name, 'textBlocks');
}

/** CAT5: the document's text as a standalone HTML page. */
export function textHtml(hocuspocus: Hocuspocus, store: Store, name: string): Promise<string> {
  return derive(hocuspocus, store, name, 'textHtml');
}

/** CAT5: the document's text as a Word document. */
export function textDocx(hocuspocus: Hocuspocus, store: Store, name: string): Promise<Uint8Array> {
  return derive(hocuspocus, store, name, 'textDocx');
}

/** The document's text as Markdown (its pending deletes left out). */
export function textMarkdown(hocuspocus: Hocuspocus, store: Store, name: string): Promise<string> {
  return derive(hocuspocus, store, name, 'textMarkdown');
}

type TextTask = 'textBlocks' | 'textMarkdown' | 'textHtml' | 'textDocx';
type Derived<K extends TextTask> = Awaited<ReturnType<WorkTasks[K]>>;

async function derive<K extends TextTask>(hocuspocus: Hocuspocus, store: Store, name: string, task: K): Promise<Derived<K>> {
  const live = hocuspocus.documents.get(name);
  if (live && !isDocumentLoading(hocuspocus, name)) {
    return derived.get(`${task}:${liveVersion(live)}`, () => run(task, Y.encodeStateAsUpdate(live)));
  }
  const connection = isDocumentLoading(hocuspocus, name) ? await hocuspocus.openDirectConnection(name) : null;
  try {
    const state = connection ? Y.encodeStateAsUpdate(connection.document!) : ((await store.loadState(name)) ?? Y.encodeStateAsUpdate(new Y.Doc()));
    return await derived.get(`${task}:${sha256(state)}`, () => run(task, state));
  } finally {
    await connection?.disconnect();
  }
}

function run<K extends TextTask>(task: K, state: Uint8Array): Promise<Derived<K>> {
  return workPool().run(task, state) as Promise<Derived<K>>;
}
