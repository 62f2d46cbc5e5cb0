import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { appendToBlock } from '../helpers/doc-builder.ts';
import { connectPeer, waitFor, type Peer } from '../helpers/peer.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { postgresSchemas } from '../helpers/pg-schema.ts';
import { useRedis, type Service } from '../helpers/services.ts';
import { connectYjsPeer } from '../helpers/yjs-peer.ts';

/*
 * Authorship on two instances over one PostgreSQL and one Redis (WHO1, WHO2, SCALE): the
 * instance that receives an update claims its client ids in the shared table, so either
 * instance names the writers, and a claim made on one binds the other.
 */

const postgres = postgresSchemas();
let redis: Service;
let dataDir: string;
let a: ServerProcess;
let b: ServerProcess;
const peers: { destroy(): void }[] = [];

beforeAll(async () => {
  await postgres.setUp();
  redis = await useRedis();
  dataDir = mkdtempSync(join(tmpdir(), 'tandem-authorship-'));
  const env = { DATABASE_URL: await postgres.fresh(), REDIS_URL: redis.url };
  a = await startServerProcess(dataDir, env);
  b = await startServerProcess(dataDir, env);
});
afterAll(async () => {
  for (const peer of peers.splice(0)) peer.destroy();
  await Promise.all([a?.kill(), b?.kill()]);
  rmSync(dataDir, { recursive: true, force: true });
  await postgres.tearDown();
  await redis.stop();
});

function peer(server: ServerProcess, name: string, token: string): Peer {
  const connected = connectPeer({ wsUrl: server.wsUrl, name, token });
  peers.push(connected);
  return connected;
}

const spanNames = async (server: ServerProcess, docId: string) =>
  ((await server.api(`/api/docs/${docId}/authorship`)).body.blocks[0].spans as { text: string; by: { name: string } }[]).map((span) => [span.text, span.by.name]);

describe('authorship on two instances', { timeout: 90_000 }, () => {
  it('[WHO1] [WHO2] names people writing on either instance, and a claim on one binds the other', async () => {
    const id = await a.createDoc('Shared', 'one');
    const ana = peer(a, id, a.token('editor', { sub: 'ana', name: 'Ana' }));
    const bo = peer(b, id, b.token('editor', { sub: 'bo', name: 'Bo' }));
    await Promise.all([ana.synced, bo.synced]);
    appendToBlock(ana.ydoc, 0, ' Ana');
    await waitFor(async () => (await b.api(`/api/docs/${id}/markdown`)).body === 'one Ana', 10_000);
    appendToBlock(bo.ydoc, 0, ' Bo');
    await waitFor(async () => (await a.api(`/api/docs/${id}/markdown`)).body === 'one Ana Bo', 10_000);
    const expected = [['one', 'Owner'], [' Ana', 'Ana'], [' Bo', 'Bo']];
    await waitFor(async () => JSON.stringify(await spanNames(b, id)) === JSON.stringify(expected), 10_000);
    expect(await spanNames(a, id)).toEqual(expected);

    // Mallory, on B, writes under the client id Ana's connection to A claimed.
    const forger = new Y.Doc();
    const mallory = connectYjsPeer({ wsUrl: b.wsUrl, name: id, token: b.token('editor', { sub: 'mallory', name: 'Mallory' }), ydoc: forger });
    peers.push(mallory);
    await mallory.synced;
    const own = forger.clientID;
    forger.clientID = ana.ydoc.clientID;
    appendToBlock(forger, 0, ' forged');
    forger.clientID = own;
    // Ana's claim, made on A, holds on B: what comes under her id stays hers on both.
    const after = [...expected, [' forged', 'Ana']];
    await waitFor(async () => JSON.stringify(await spanNames(b, id)) === JSON.stringify(after), 10_000);
    await waitFor(async () => JSON.stringify(await spanNames(a, id)) === JSON.stringify(after), 10_000);
  });
});
