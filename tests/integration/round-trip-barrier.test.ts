import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readBlocks } from '../../shared/model/doc-content.ts';
import { appendToBlock } from '../helpers/doc-builder.ts';
import { connectPeer, roundTrip } from '../helpers/peer.ts';
import { startServerProcess } from '../helpers/server-process.ts';
import { postgresSchemas } from '../helpers/pg-schema.ts';

/*
 * The barrier every sync test leans on (tests/helpers/peer.ts `roundTrip`), where the server
 * is slowest to apply an update: on PostgreSQL it awaits the append before it applies. The
 * server acknowledges a peer's earlier step 2 before it reads an update sent after, so a
 * barrier that ends on the provider's `synced` flag ends too early.
 */

const postgres = postgresSchemas();
beforeAll(() => postgres.setUp());
afterAll(() => postgres.tearDown());

it('[test helper] a round trip ends only once the server has applied what the peer sent before it', { timeout: 120_000 }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tandem-round-trip-'));
  const server = await startServerProcess(dataDir, { DATABASE_URL: await postgres.fresh() });
  try {
    const seen: boolean[] = [];
    for (let i = 0; i < 20; i++) {
      const id = await server.createDoc(`Barrier ${i}`, 'first\n\nsecond');
      const writer = connectPeer({ wsUrl: server.wsUrl, name: id, token: server.token('editor') });
      await writer.synced;
      await roundTrip(writer);
      appendToBlock(writer.ydoc, 0, ' changed');
      await roundTrip(writer);
      const reader = connectPeer({ wsUrl: server.wsUrl, name: id, token: server.token('viewer') });
      await reader.synced;
      seen.push(readBlocks(reader.ydoc)[0]?.markdown === 'first changed');
      writer.destroy();
      reader.destroy();
    }
    expect(seen.filter((held) => !held)).toEqual([]);
  } finally {
    await server.kill();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
