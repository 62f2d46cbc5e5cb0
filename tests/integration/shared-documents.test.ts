import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Server } from '@hocuspocus/server';
import { sharedDocuments } from '../../server/extensions/shared-documents.ts';
import { connectPeer, waitFor, type Peer } from '../helpers/peer.ts';
import { useRedis, type Service } from '../helpers/services.ts';

/*
 * server/extensions/shared-documents.ts on two bare Hocuspocus servers sharing one Redis: a
 * server-side write on one reaches a person on the other, and the writer's document stays
 * loaded a moment after its direct connection closed, without the route waiting for it.
 */

let redis: Service;
const servers: Server[] = [];
const peers: Peer[] = [];

beforeAll(async () => {
  redis = await useRedis();
});
afterAll(() => redis.stop());
afterEach(async () => {
  for (const peer of peers.splice(0)) peer.destroy();
  await Promise.all(servers.splice(0).map((server) => server.destroy()));
});

async function start(): Promise<Server> {
  const server = new Server({ port: 0, address: '127.0.0.1', quiet: true, stopOnSignals: false, extensions: sharedDocuments(redis.url) });
  await server.listen();
  servers.push(server);
  return server;
}

describe('documents shared through Redis', { timeout: 30_000 }, () => {
  it('[SCALE4] brings a direct connection’s write to a person on the other instance, and unloads the document after it returned', async () => {
    const [a, b] = [await start(), await start()];
    const name = `shared-${Date.now()}`;
    const person = connectPeer({ wsUrl: `ws://127.0.0.1:${b.address.port}`, name, token: 'any' });
    peers.push(person);
    await person.synced;

    const connection = await a.hocuspocus.openDirectConnection(name);
    connection.document!.transact(() => connection.document!.getText('t').insert(0, 'from A'));
    await connection.disconnect();
    // The disconnect returned while the document is still loaded for B to fetch from.
    expect(a.hocuspocus.documents.has(name)).toBe(true);
    await waitFor(() => person.ydoc.getText('t').toString() === 'from A', 10_000);
    await waitFor(() => !a.hocuspocus.documents.has(name), 10_000);
  });
});
