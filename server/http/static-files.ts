import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
};

const immutable = 'public, max-age=31536000, immutable';

/**
 * Serves the built client from `distDir`. A path that names no file and has no extension is an
 * app route (`/d/<id>`) and gets index.html; Vite's hashed files under /assets/ are cached for
 * good, everything else (index.html, sw.js) is revalidated on every load. Without a build, app
 * routes answer 503 with what to run.
 */
export function createStaticHandler(distDir: string) {
  return async function handleStatic(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return sendPlain(res, 405, 'Method not allowed.\n', { Allow: 'GET, HEAD' });
    }
    const path = decodePath(new URL(req.url ?? '/', 'http://localhost').pathname);
    if (path === null) return sendPlain(res, 400, 'Bad path.\n');
    const file = await findFile(distDir, path);
    if (file) return sendFile(req, res, file, path.startsWith('/assets/') ? immutable : 'no-cache');
    if (path.startsWith('/assets/') || extname(path) !== '') return sendPlain(res, 404, 'Not found.\n');
    const index = await findFile(distDir, '/index.html');
    if (index) return sendFile(req, res, index, 'no-cache');
    sendPlain(res, 503, 'The Tandem web app is not built yet: run `npm run build` (or `npm start`, which builds it).\n');
  };
}

function decodePath(pathname: string): string | null {
  try {
    const path = decodeURIComponent(pathname);
    return path.includes('\0') ? null : path;
  } catch {
    return null;
  }
}

/** The file under `root` that `path` names, never outside `root`, or null. */
async function findFile(root: string, path: string): Promise<{ file: string; size: number } | null> {
  const file = normalize(join(root, path));
  if (file !== root && !file.startsWith(root.endsWith(sep) ? root : root + sep)) return null;
  try {
    const info = await stat(file);
    return info.isFile() ? { file, size: info.size } : null;
  } catch {
    return null;
  }
}

function sendFile(
  req: IncomingMessage,
  res: ServerResponse,
  { file, size }: { file: string; size: number },
  cacheControl: string,
): void {
  res.writeHead(200, {
    'Content-Type': contentTypes[extname(file).toLowerCase()] ?? 'application/octet-stream',
    'Content-Length': size,
    'Cache-Control': cacheControl,
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  createReadStream(file)
    .on('error', () => res.destroy())
    .pipe(res);
}

function sendPlain(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-cache',
    ...headers,
  });
  res.end(body);
}
