import * as v from 'valibot';
import { TextAuthor } from './authorship.ts';

/**
 * HIST1: why a version was recorded: a person named it, people wrote for a while (`auto`), a
 * run was decided, or a version was restored.
 */
export const VersionReason = v.picklist(['named', 'auto', 'run-accepted', 'run-discarded', 'run-reverted', 'restore']);
export type VersionReason = v.InferOutput<typeof VersionReason>;

/** One version as `GET /api/docs/:id/versions` lists it; `name` is empty unless a person named it, `createdAt` an ISO time. */
export const VersionView = v.object({
  versionId: v.string(),
  name: v.string(),
  reason: VersionReason,
  createdAt: v.string(),
  by: v.object({ name: v.string() }),
});
export type VersionView = v.InferOutput<typeof VersionView>;

/** `GET /api/docs/:id/versions`: newest first. */
export const VersionList = v.array(VersionView);
export type VersionList = v.InferOutput<typeof VersionList>;

/** `POST /api/docs/:id/versions {name}`. */
export const NameVersionBody = v.object({ name: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200)) });
export type NameVersionBody = v.InferOutput<typeof NameVersionBody>;

/** The answer to naming a version (201) and to restoring one (200: the `restore` version recorded). */
export const VersionRecorded = v.object({ versionId: v.string() });
export type VersionRecorded = v.InferOutput<typeof VersionRecorded>;

/**
 * HIST5: one change between two versions, in document order: text inserted into or deleted
 * from the block `blockId`. An insertion's `by` is who wrote that text; a deletion's is who
 * wrote the text deleted.
 */
export const VersionChange = v.object({
  kind: v.picklist(['insert', 'delete']),
  blockId: v.string(),
  text: v.string(),
  by: TextAuthor,
});
export type VersionChange = v.InferOutput<typeof VersionChange>;

/** `GET /api/docs/:id/compare?from=VERSION&to=VERSION|current`. */
export const VersionComparison = v.object({ changes: v.array(VersionChange) });
export type VersionComparison = v.InferOutput<typeof VersionComparison>;
