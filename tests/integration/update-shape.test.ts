import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import * as Y from 'yjs';
import { describe, expect, it, vi } from 'vitest';
import { docParts } from '../../shared/model/doc-layout.ts';
import { defaultShapeLimits } from '../../server/sync/update-shape.ts';
import { roundTrip, waitFor, type Peer } from '../helpers/peer.ts';
import { connectYjsPeer } from '../helpers/yjs-peer.ts';
import { useTestServer } from '../helpers/use-test-server.ts';
import { storedRows } from '../helpers/stored-rows.ts';

/**
 * The shape rules (SHAPE1–SHAPE6) against a real server: an editor limited to one document
 * writes a value 5,000 levels deep (10 KB, which browsers cannot decode) on either entry point;
 * the server refuses it, no peer gets it, the store never holds it, and the document loads after
 * a restart. A value stored before the check (as an older server logged it) no longer keeps the
 * document from loading, and `tandem repair` writes the document back without it.
 */

const server = useTestServer();
const run = promisify(execFile);

/** Arrays nested `depth` deep; each level is two bytes of the update. */
function nested(depth: number): unknown {
  let value: unknown = [];
  for (let level = 1; level < depth; level++) value = [value];
  return value;
}

/** Where the bytes of a value nested deeper than SHAPE2 allows would show in a stored update. */
const deepBytes = Buffer.from(Array.from({ length: 2 * (defaultShapeLimits.valueDepth + 1) }, (_, index) => (index % 2 === 0 ? 117 : 1)));

/** Every stored row (state and log) of the document `name` that holds such bytes, read straight from the database (SQLite or PostgreSQL). */
async function storedRowsWithDeepValues(name: string): Promise<number> {
  const { state, log } = await storedRows(server, name);
  return [...(state ? [state] : []), ...log].filter((data) => Buffer.from(data).includes(deepBytes)).length;
}

/** The reasons the server gave for closing `peer`'s connection, in order. */
function closeReasons(peer: Peer): string[] {
  const reasons: string[] = [];
  peer.provider.on('close', ({ event }: { event: { reason: string } }) => {
    if (event.reason) reasons.push(event.reason);
  });
  return reasons;
}

/** Writes a paragraph through `peer` and waits until the server has it. */
async function writeParagraph(peer: Peer, text: string): Promise<void> {
  const paragraph = new Y.XmlElement('paragraph');
  paragraph.insert(0, [new Y.XmlText(text)]);
  docParts(peer.ydoc).content.push([paragraph]);
  await roundTrip(peer);
}

/** The document as a restarted server answers it: its JSON, its Markdown, and a fresh peer's sync. */
async function expectLoads(id: string, text: string): Promise<void> {
  const doc = await server.api(`/api/docs/${id}`);
  expect(doc.status).toBe(200);
  const markdown = await server.api(`/api/docs/${id}/markdown`);
  expect(markdown.status).toBe(200);
  expect(markdown.body).toContain(text);
  const fresh = server.connect(id);
  await fresh.synced;
  expect(docParts(fresh.ydoc).content.toString()).toContain(text);
  const yjs = server.track(connectYjsPeer({ wsUrl: server.wsUrl, name: id, token: server.ownerToken }));
  await yjs.synced;
  expect(docParts(yjs.ydoc).content.toString()).toContain(text);
}

describe('updates of the wrong shape', () => {
  it('[SHAPE1] [SHAPE4] refuses a 5,000-level value in a new top-level map from a --doc editor on /collab: no peer sees it, the log never holds it, a restart loads the document', async () => {
    const id = await server.createDoc('Shapes', 'first words');
    const watcher = server.connect(id);
    const attacker = server.connect(id, server.token('editor', { doc: id }));
    await Promise.all([watcher.synced, attacker.synced]);
    const reasons = closeReasons(attacker);

    attacker.ydoc.getMap('stash').set('deep', nested(5_000));
    await waitFor(() => reasons.length > 0);
    expect(reasons[0]).toMatch(/^\[SHAPE1\] /);
    attacker.destroy();

    await writeParagraph(watcher, 'after the attempt');
    await roundTrip(watcher);
    expect(watcher.ydoc.share.has('stash')).toBe(false);
    expect(await storedRowsWithDeepValues(id)).toBe(0);
    watcher.destroy();
    await server.restart();
    await expectLoads(id, 'after the attempt');
    expect(await storedRowsWithDeepValues(id)).toBe(0);
  });

  it('[SHAPE2] [SHAPE4] refuses a 5,000-level value in the document\'s own map on /yjs, closing with 4403 and the rule', async () => {
    const id = await server.createDoc('Shapes on /yjs', 'first words');
    const watcher = server.connect(id);
    await watcher.synced;
    const attacker = server.track(connectYjsPeer({ wsUrl: server.wsUrl, name: id, token: server.token('editor', { doc: id }) }));
    await attacker.synced;

    docParts(attacker.ydoc).meta.set('title', nested(5_000));
    const closed = await attacker.closed;
    expect(closed.code).toBe(4403);
    expect(closed.reason).toMatch(/^\[SHAPE2\] /);

    await writeParagraph(watcher, 'still editable');
    expect(docParts(watcher.ydoc).meta.get('title')).toBe('Shapes on /yjs');
    expect(await storedRowsWithDeepValues(id)).toBe(0);
    await server.restart();
    await expectLoads(id, 'still editable');
  });

  it('[SHAPE3] refuses a value of more entries than the limit on /yjs, closing with 4413', async () => {
    const id = await server.createDoc('Wide values', 'first words');
    const attacker = server.track(connectYjsPeer({ wsUrl: server.wsUrl, name: id, token: server.token('editor', { doc: id }) }));
    await attacker.synced;
    docParts(attacker.ydoc).meta.set('wide', Array.from({ length: defaultShapeLimits.valueEntries + 1 }, () => 0));
    const closed = await attacker.closed;
    expect(closed).toEqual({ code: 4413, reason: `[SHAPE3] A value may hold at most ${defaultShapeLimits.valueEntries} entries.` });
  });

  it('[SHAPE2] takes a value exactly as deep as the limit, on both entry points', async () => {
    const id = await server.createDoc('At the limit', 'first words');
    const collab = server.connect(id);
    const yjs = server.track(connectYjsPeer({ wsUrl: server.wsUrl, name: id, token: server.ownerToken }));
    await Promise.all([collab.synced, yjs.synced]);
    docParts(collab.ydoc).meta.set('fromCollab', nested(defaultShapeLimits.valueDepth));
    docParts(yjs.ydoc).meta.set('fromYjs', nested(defaultShapeLimits.valueDepth));
    await waitFor(() => docParts(collab.ydoc).meta.has('fromYjs') && docParts(yjs.ydoc).meta.has('fromCollab'));
  });

  it('[SHAPE5] [SHAPE6] loads a document whose store holds such a value from an older server, says so, and `tandem repair` writes it back without it', { timeout: 120_000 }, async () => {
    const id = await server.createDoc('Stored before the check', 'words that stay');
    await server.stop();
    // As an older server compacted it: the value inside the stored state, which a load that
    // changes nothing never writes again. Written to the row itself: a compaction of this server
    // on PostgreSQL, which merges the state, would leave the value out.
    const store = await server.openStore();
    const loaded = await store.loadState(id);
    await store.close();
    if (loaded === null) throw new Error(`No stored state of ${id}`);
    const ydoc = new Y.Doc();
    Y.applyUpdate(ydoc, loaded);
    ydoc.getMap('stash').set('deep', nested(5_000));
    docParts(ydoc).meta.set('deep', nested(5_000));
    await server.exec('UPDATE documents SET data = ? WHERE name = ?', [Buffer.from(Y.encodeStateAsUpdate(ydoc)), id]);
    await server.exec('DELETE FROM update_log WHERE name = ?', [id]);
    expect(await storedRowsWithDeepValues(id)).toBe(1);

    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      await server.restart();
      await expectLoads(id, 'words that stay');
      const lines = logged.mock.calls.map((call) => call.join(' '));
      expect(lines.filter((line) => line.includes(`Loaded "${id}" without 2 unreadable items ([SHAPE2]`))).toHaveLength(1);
      expect(lines.some((line) => line.includes(`npx tandem repair ${id}`))).toBe(true);
    } finally {
      logged.mockRestore();
    }

    await server.stop();
    const tandem = (...args: string[]) =>
      run('npx', ['--offline', 'tandem', ...args], { cwd: new URL('../..', import.meta.url).pathname, env: { ...process.env, DATA_DIR: server.dataDir, DATABASE_URL: server.databaseUrl ?? '' } });
    expect((await tandem('repair', id)).stdout).toBe(`Repaired "${id}" without 2 unreadable items ([SHAPE2] Values may nest at most 32 levels deep.); it now loads whole\n`);
    expect(await storedRowsWithDeepValues(id)).toBe(0);
    expect((await tandem('repair', id)).stdout).toBe(`Document ${id} loads whole; nothing to repair\n`);
    await expect(tandem('repair', 'no-such-doc')).rejects.toMatchObject({ code: 1, stderr: 'No document no-such-doc\n' });

    const quiet = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      await server.restart();
      await expectLoads(id, 'words that stay');
      expect(quiet.mock.calls.map((call) => call.join(' ')).filter((line) => line.includes('unreadable'))).toEqual([]);
    } finally {
      quiet.mockRestore();
    }
  });
});
