import type { ImageType } from '../../shared/model/image-bytes.ts';

/** An image stored beside a document (IMG3): its bytes and the type read from them. */
export interface StoredAsset {
  type: ImageType;
  bytes: Uint8Array;
}

/**
 * The images uploaded into documents, content-addressed per document: an asset's id is the hex
 * SHA-256 of its bytes, so the same image uploaded twice into one document is kept once, and
 * an address, once written, always names the same bytes. SQLite (sqlite-assets.ts) and
 * PostgreSQL (pg-assets.ts) implement it; a document's assets go when the trash purges it.
 */
export interface AssetStore {
  /** Keeps `asset` under `assetId` for `docId`; a no-op when it is kept already. */
  put(docId: string, assetId: string, asset: StoredAsset, at: number): Promise<void>;
  get(docId: string, assetId: string): Promise<StoredAsset | null>;
  /** The ids of the document's assets. */
  ids(docId: string): Promise<string[]>;
  /** CAT4: gives document `to` every asset of document `from` (a duplicate's images stay its own). */
  copy(from: string, to: string, at: number): Promise<void>;
}
