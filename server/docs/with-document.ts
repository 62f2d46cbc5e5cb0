import type * as Y from 'yjs';
import type { Hocuspocus } from '@hocuspocus/server';

/**
 * Calls `use` with the live Hocuspocus document `name` (loaded if it was not) through a direct
 * connection, closed afterwards, which stores the document if `use` changed it. Write with
 * `ydoc.transact(fn, origin)`: the direct connection's own `transact` brings its own origin.
 */
export async function withDocument<T>(hocuspocus: Hocuspocus, name: string, use: (ydoc: Y.Doc) => T | Promise<T>): Promise<T> {
  const connection = await hocuspocus.openDirectConnection(name);
  try {
    // A direct connection holds its document from its opening to its disconnect.
    if (!connection.document) throw new Error(`The document ${name} closed under a direct connection`);
    return await use(connection.document);
  } finally {
    await connection.disconnect();
  }
}
