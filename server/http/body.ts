import { Rejection } from '../../shared/protocol/rejection.ts';
import type { IncomingMessage } from 'node:http';

/** Past this many bytes a too-large body is no longer drained but its connection cut. */
const drainLimitFactor = 8;

/**
 * Reads a JSON body of at most `limit` bytes. Throws Rejection 413 `BODY_TOO_LARGE` (after
 * draining the rest, so the client reads the answer) or 400 `INVALID_JSON`. An empty body is
 * `undefined` when `optional`, else refused.
 */
export async function readJsonBody(req: IncomingMessage, limit: number, optional = false): Promise<unknown> {
  const raw = await readBody(req, limit);
  if (raw.length === 0 && optional) return undefined;
  if (raw.length === 0) throw new Rejection(400, 'INVALID_JSON', 'The request body is empty; send a JSON object.');
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new Rejection(400, 'INVALID_JSON', 'The request body is not valid JSON.');
  }
}

/** Reads a body of at most `limit` bytes as it is; the same refusals as `readJsonBody` (413 `tooLarge` when given). */
export function readBody(req: IncomingMessage, limit: number, tooLargeRefusal?: () => Rejection): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = Number(req.headers['content-length'] ?? 0) > limit;
    const refuse = () => reject(tooLargeRefusal?.() ?? new Rejection(413, 'BODY_TOO_LARGE', `The request body is larger than ${limit} bytes.`));
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      if (size > limit * drainLimitFactor) {
        refuse();
        req.destroy();
      } else if (!tooLarge) {
        chunks.push(chunk);
      }
    });
    req.on('end', () => (tooLarge ? refuse() : resolve(Buffer.concat(chunks))));
    req.on('error', reject);
    req.on('close', () => {
      if (!req.complete) reject(new Rejection(400, 'BODY_INCOMPLETE', 'The request body ended early.'));
    });
  });
}
