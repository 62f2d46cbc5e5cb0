import { assetUrl } from '../../shared/model/image-src.ts';
import type { StoredAsset } from '../store/asset-store.ts';
import type { Store } from '../store/store.ts';

/** A document's own images, by their address (`/api/docs/ID/assets/HASH`), for an export to embed. */
export type OwnImages = Record<string, StoredAsset>;

/**
 * The most bytes of images an export (HTML, Word) embeds (IMG3); past it, an image is written
 * as its address, as an image from elsewhere is.
 */
export const maxEmbeddedImageBytes = 32 * 1024 * 1024;

/** The images uploaded into document `docId`, by their address, up to `maxEmbeddedImageBytes` in all. */
export async function ownImages(store: Store, docId: string): Promise<OwnImages> {
  const images: OwnImages = {};
  let total = 0;
  for (const assetId of await store.assets.ids(docId)) {
    const asset = await store.assets.get(docId, assetId);
    if (!asset || total + asset.bytes.byteLength > maxEmbeddedImageBytes) continue;
    total += asset.bytes.byteLength;
    images[assetUrl(docId, assetId)] = asset;
  }
  return images;
}
