import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../server/index.ts';
import { postgresSchemas } from '../helpers/pg-schema.ts';
import { useRedis, type Service } from '../helpers/services.ts';

/*
 * Hocuspocus runs the hooks of Tandem's extensions in the order of their `priority`
 * (server/sync/extension-priorities.ts), whatever their place in server/index.ts's list: every
 * extension has one, and the order is the one the persistence and the guards need on each backend.
 */

const postgres = postgresSchemas();
let redis: Service;
beforeAll(async () => {
  await postgres.setUp();
  redis = await useRedis();
});
afterAll(async () => {
  await postgres.tearDown();
  await redis.stop();
});

async function extensionsOf(options: { databaseUrl?: string; redisUrl?: string }) {
  const dataDir = mkdtempSync(join(tmpdir(), 'tandem-order-'));
  const server = await startServer({ port: 0, host: '127.0.0.1', dataDir, quiet: true, agent: 'off', ...options });
  try {
    return server.extensions;
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const before = ['TandemAuth', 'TandemSocketLimits', 'TandemAuditConnections', 'TandemShapeGuard', 'TandemAuthorshipGuard'];
const after = [
  'TandemPresenceGuard',
  'TandemNotesStrays',
  'TandemNestedIds',
  'TandemDocMetadata',
  'TandemSearchIndexing',
  'TandemAnnotationIndex',
  'TandemRunMirrorLoad',
  'TandemRunGc',
  'TandemTextWriters',
  'TandemAutoVersions',
  'TandemAgentStateless',
  'TandemFreshSync',
];

describe('the order of the extensions', () => {
  it('on SQLite: the prompt broadcast and the log before the notes guard, the fresh sync last', async () => {
    const extensions = await extensionsOf({});
    expect(extensions.map(({ name }) => name)).toEqual([...before, 'TandemPromptBroadcast', 'TandemPersistence', 'TandemNotesGuard', ...after]);
    for (const { name, priority } of extensions) expect(priority, name).toBeTypeOf('number');
  });

  it('on PostgreSQL with Redis: the shared documents first, the log after every refusal', async () => {
    const extensions = await extensionsOf({ databaseUrl: await postgres.fresh(), redisUrl: redis.url });
    expect(extensions.map(({ name }) => name)).toEqual(['TandemSharedDocuments', ...before, 'TandemNotesGuard', 'TandemAsyncPersistence', ...after]);
    for (const { name, priority } of extensions) expect(priority, name).toBeTypeOf('number');
  });
});
