import type Database from 'better-sqlite3';
import type { ImageType } from '../../shared/model/image-bytes.ts';
import type { AssetStore } from './asset-store.ts';

/** Migration 4's table: the images of each document (IMG3), keyed by document and SHA-256. */
export const assetsSchema = `
CREATE TABLE assets (
  doc_id TEXT NOT NULL REFERENCES docs(id),
  asset_id TEXT NOT NULL,
  type TEXT NOT NULL,
  data BLOB NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (doc_id, asset_id)
);
`;

export function sqliteAssetStore(db: Database.Database): AssetStore {
  const insert = db.prepare('INSERT INTO assets (doc_id, asset_id, type, data, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING');
  const select = db.prepare<[string, string], { type: ImageType; data: Buffer }>('SELECT type, data FROM assets WHERE doc_id = ? AND asset_id = ?');
  const selectIds = db.prepare<[string], { asset_id: string }>('SELECT asset_id FROM assets WHERE doc_id = ? ORDER BY asset_id');
  const copy = db.prepare(
    `INSERT INTO assets (doc_id, asset_id, type, data, created_at)
     SELECT @to, asset_id, type, data, @at FROM assets WHERE doc_id = @from ON CONFLICT DO NOTHING`,
  );
  return {
    async put(docId, assetId, asset, at) {
      insert.run(docId, assetId, asset.type, Buffer.from(asset.bytes.buffer, asset.bytes.byteOffset, asset.bytes.byteLength), at);
    },
    async get(docId, assetId) {
      const row = select.get(docId, assetId);
      return row ? { type: row.type, bytes: new Uint8Array(row.data.buffer, row.data.byteOffset, row.data.byteLength) } : null;
    },
    async ids(docId) {
      return selectIds.all(docId).map((row) => row.asset_id);
    },
    async copy(from, to, at) {
      copy.run({ from, to, at });
    },
  };
}
