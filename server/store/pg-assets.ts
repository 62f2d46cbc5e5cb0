import type pg from 'pg';
import type { ImageType } from '../../shared/model/image-bytes.ts';
import type { AssetStore } from './asset-store.ts';
import { toBuffer } from './pg-db.ts';

/** The images of each document over PostgreSQL (migration step 8), as sqlite-assets.ts describes them. */
export function pgAssetStore(pool: pg.Pool): AssetStore {
  return {
    async put(docId, assetId, asset, at) {
      await pool.query(
        'INSERT INTO assets (doc_id, asset_id, type, data, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING',
        [docId, assetId, asset.type, toBuffer(asset.bytes), at],
      );
    },
    async get(docId, assetId) {
      const { rows } = await pool.query<{ type: ImageType; data: Buffer }>('SELECT type, data FROM assets WHERE doc_id = $1 AND asset_id = $2', [docId, assetId]);
      const row = rows[0];
      return row ? { type: row.type, bytes: new Uint8Array(row.data.buffer, row.data.byteOffset, row.data.byteLength) } : null;
    },
    async ids(docId) {
      const { rows } = await pool.query<{ asset_id: string }>('SELECT asset_id FROM assets WHERE doc_id = $1 ORDER BY asset_id COLLATE "C"', [docId]);
      return rows.map((row) => row.asset_id);
    },
    async copy(from, to, at) {
      await pool.query(
        `INSERT INTO assets (doc_id, asset_id, type, data, created_at)
         SELECT $2, asset_id, type, data, $3 FROM assets WHERE doc_id = $1 ON CONFLICT DO NOTHING`,
        [from, to, at],
      );
    },
  };
}
