import { createHash } from 'node:crypto';
import { maxImageBytes, sniffImageType } from '../../shared/model/image-bytes.ts';
import { assetIdPattern, assetUrl } from '../../shared/model/image-src.ts';
import { coversDoc, may } from '../../shared/protocol/permissions.ts';
import { Rejection } from '../../shared/protocol/rejection.ts';
import type { AssetUploaded } from '../../shared/wire/assets.ts';
import type { Store } from '../store/store.ts';
import { forbidden, notFound } from './api-error.ts';
import type { RouteHandler } from './api.ts';
import { readBody } from './body.ts';
import { readableDoc } from './doc-access.ts';
import { bytes, json } from './reply.ts';
import type { Router } from './router.ts';

/**
 * An asset is served as the image it is and nothing more: it runs nothing and loads nothing,
 * even opened on its own in a tab, and its bytes never change under its address (content
 * addressed), so a browser keeps it for a year. `private`: it is for those who may read the
 * document, never for a shared cache.
 */
const assetHeaders = {
  'Content-Security-Policy': "default-src 'none'; sandbox",
  'Cache-Control': 'private, max-age=31536000, immutable',
  'X-Content-Type-Options': 'nosniff',
};

const tooLarge = () => new Rejection(413, 'IMAGE_TOO_LARGE', `An image can be at most ${maxImageBytes / 1024 / 1024} MiB.`);

/** IMG3 and IMG5: upload an image into a document (editors), and read it back (its readers). */
export function addAssetRoutes(router: Router<RouteHandler>, deps: { store: Store; now?: () => number }): void {
  const { store } = deps;
  const now = deps.now ?? Date.now;

  router.add('POST', '/api/docs/:id/assets', async ({ principal, params, req }) => {
    const record = await readableDoc(store, principal, params.id);
    if (!may(principal.role, 'text.write') || !coversDoc(principal, record.id)) throw forbidden('Only editors may add images to a document.');
    if (record.kind !== 'text') throw new Rejection(422, 'NOT_A_TEXT_DOCUMENT', 'Images are uploaded into text documents.');
    const body = new Uint8Array(await readBody(req, maxImageBytes, tooLarge));
    const type = sniffImageType(body);
    if (type === null) {
      throw new Rejection(415, 'UNSUPPORTED_IMAGE', 'This file is not an image Tandem keeps: upload a PNG, JPEG, GIF or WebP image.');
    }
    const assetId = createHash('sha256').update(body).digest('hex');
    await store.assets.put(record.id, assetId, { type, bytes: body }, now());
    const answer: AssetUploaded = { url: assetUrl(record.id, assetId) };
    return json(201, answer);
  });

  router.add('GET', '/api/docs/:id/assets/:assetId', async ({ principal, params }) => {
    const record = await readableDoc(store, principal, params.id);
    const asset = assetIdPattern.test(params.assetId) ? await store.assets.get(record.id, params.assetId) : null;
    if (!asset) throw notFound('This document has no such image.');
    return bytes(200, asset.bytes, asset.type, assetHeaders);
  });
}
