import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../server/index.ts';
import { extensionPriority } from '../../server/sync/extension-priorities.ts';
import { postgresSchemas } from '../helpers/pg-schema.ts';
import { useRedis, type Service } from '../helpers/services.ts';

/*
 * Hocuspocus runs the hooks of Tandem's extensions in the order of their `priority`
 * (server/sync/extension-priorities.ts), whatever their place in server/index.ts's list: every
 * extension has one from extension-priorities.ts, and both backends run the same extensions in the
 * same order (Redis's shared documents first where there is a Redis).
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
  it('on SQLite: the persistence after the notes guard, the fresh sync last', async () => {
    const extensions = await extensionsOf({});
    expect(extensions.map(({ name }) => name)).toEqual([...before, 'TandemNotesGuard', 'TandemPersistence', ...after]);
    for (const { name, priority } of extensions) expect(priority, name).toBeTypeOf('number');
  });

  it('on PostgreSQL with Redis: the shared documents first, then the same extensions in the same order as on SQLite', async () => {
    const extensions = await extensionsOf({ databaseUrl: await postgres.fresh(), redisUrl: redis.url });
    expect(extensions.map(({ name }) => name)).toEqual(['TandemSharedDocuments', ...before, 'TandemNotesGuard', 'TandemPersistence', ...after]);
    for (const { name, priority } of extensions) expect(priority, name).toBeTypeOf('number');
  });

  it('gives every extension its own priority from server/sync/extension-priorities.ts', async () => {
    const extensions = await extensionsOf({ databaseUrl: await postgres.fresh(), redisUrl: redis.url });
    const listed = new Set<number>(Object.values(extensionPriority));
    for (const { name, priority } of extensions) expect(listed.has(priority!), `${name}: ${priority}`).toBe(true);
    expect(new Set(extensions.map(({ priority }) => priority)).size).toBe(extensions.length);
    expect(extensions).toHaveLength(listed.size);
  });
});
