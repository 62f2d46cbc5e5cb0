import * as v from 'valibot';

/** IMG3: the answer of `POST /api/docs/:id/assets`: the address the image is served at. */
export const AssetUploaded = v.object({ url: v.string() });
export type AssetUploaded = v.InferOutput<typeof AssetUploaded>;
