import * as Y from 'yjs';
import type { Hocuspocus } from '@hocuspocus/server';
import type { Store } from '../store/store.ts';
import { DerivedCache, liveVersion, sha256 } from '../work/derived-cache.ts';
import { workPool } from '../work/work-pool.ts';

/**
 * What the API reads of a text document, its blocks and its Markdown (LIMIT10): derived in the
 * work pool's threads from the document's state, and kept per version, so readers of an
 * unchanged document share one reading. The version of a loaded document is counted by its
 * updates; a stored one is keyed by its bytes.
 */

const derived = new DerivedCache(64);

/** The JSON text of the document's `blocks` (BlockView[]), as `GET /api/docs/:id` and a claim answer it. */
export function textBlocksJson(hocuspocus: Hocuspocus, store: Store, name: string): Promise<string> {
  return derive(hocuspocus, store, name, 'textBlocks');
}

/** The document's text as Markdown (its pending deletes left out). */
export function textMarkdown(hocuspocus: Hocuspocus, store: Store, name: string): Promise<string> {
  return derive(hocuspocus, store, name, 'textMarkdown');
}

async function derive(hocuspocus: Hocuspocus, store: Store, name: string, task: 'textBlocks' | 'textMarkdown'): Promise<string> {
  const live = hocuspocus.documents.get(name);
  if (live && !hocuspocus.loadingDocuments.has(name)) {
    return derived.get(`${task}:${liveVersion(live)}`, () => run(task, Y.encodeStateAsUpdate(live)));
  }
  const connection = hocuspocus.loadingDocuments.has(name) ? await hocuspocus.openDirectConnection(name) : null;
  try {
    const state = connection ? Y.encodeStateAsUpdate(connection.document!) : ((await store.loadState(name)) ?? Y.encodeStateAsUpdate(new Y.Doc()));
    return await derived.get(`${task}:${sha256(state)}`, () => run(task, state));
  } finally {
    await connection?.disconnect();
  }
}

function run(task: 'textBlocks' | 'textMarkdown', state: Uint8Array): Promise<string> {
  return workPool().run(task, state);
}
