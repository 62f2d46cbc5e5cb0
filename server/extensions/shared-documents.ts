import { Redis } from '@hocuspocus/extension-redis';
import IORedis from 'ioredis';
import type { Extension } from '@hocuspocus/server';

/**
 * SCALE4: with `REDIS_URL`, Hocuspocus's Redis extension shares every live document between the
 * instances on that Redis: updates, awareness and stateless broadcasts reach the clients of
 * every instance. It goes first (its priority is 1000): its `onStoreDocument` lets one instance
 * at a time store a document. Without a URL, nothing: one instance serves its documents alone.
 */
export function sharedDocuments(redisUrl: string | null): Extension[] {
  if (!redisUrl) return [];
  return [new Redis({ createClient: () => new IORedis(redisUrl) })];
}
