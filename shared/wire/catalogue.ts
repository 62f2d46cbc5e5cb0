import * as v from 'valibot';
import { DocKind } from './docs.ts';

/** The wire forms of the catalogue's routes (CAT2–CAT6): search, trash, duplicate, import. */

/** The longest search query `GET /api/docs?q=` takes, in characters. */
export const maxSearchQuery = 200;

/** `GET /api/docs[?q=TEXT | ?trash=1]`, each parameter given at most once. */
export const DocListQuery = v.pipe(
  v.object({
    q: v.optional(
      v.pipe(
        v.array(v.string()),
        v.length(1, '"q" may be given once.'),
        v.transform(([value]) => value),
        v.maxLength(maxSearchQuery, `"q" must be at most ${maxSearchQuery} characters.`),
      ),
    ),
    trash: v.optional(
      v.pipe(
        v.array(v.string()),
        v.length(1, '"trash" may be given once.'),
        v.transform(([value]) => value),
        v.picklist(['1'], '"trash" must be 1.'),
      ),
    ),
  }),
  v.check((query) => !(query.q !== undefined && query.trash !== undefined), 'Search and the trash cannot be asked together.'),
);
export type DocListQuery = v.InferOutput<typeof DocListQuery>;

/** One entry of `GET /api/docs?trash=1`: when it was trashed and when it will be purged (ISO times). */
export const TrashedDoc = v.object({
  id: v.string(),
  title: v.string(),
  kind: DocKind,
  updatedAt: v.string(),
  deletedAt: v.string(),
  purgeAt: v.string(),
});
export type TrashedDoc = v.InferOutput<typeof TrashedDoc>;
export const TrashList = v.array(TrashedDoc);

/** The answer of `DELETE /api/docs/:id`. */
export const DocTrashed = v.object({ id: v.string(), deletedAt: v.string(), purgeAt: v.string() });
export type DocTrashed = v.InferOutput<typeof DocTrashed>;

/** The answer of `POST /api/docs/:id/restore`. */
export const DocRestored = v.object({ id: v.string() });
export type DocRestored = v.InferOutput<typeof DocRestored>;

/** What an import could not keep, a sentence each (CAT6). */
export const ImportWarnings = v.array(v.string());

/** `POST /api/docs/:id/import`: a Markdown or HTML file's text, added at the end of the document. */
export const ImportBody = v.object({
  format: v.picklist(['markdown', 'html'], 'format must be "markdown" or "html".'),
  source: v.string('source must be a string.'),
});
export type ImportBody = v.InferOutput<typeof ImportBody>;

/** The answer of an import: how many blocks it added and what it could not keep. */
export const ImportAnswer = v.object({ blocks: v.number(), warnings: ImportWarnings });
export type ImportAnswer = v.InferOutput<typeof ImportAnswer>;
