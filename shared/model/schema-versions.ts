/**
 * VER5: the schema version of the Y.Doc layout and of every record type, and the way from each
 * older version to the current one, defined once.
 *
 * A record keeps its version in the field `v`; a record without one is version 1 (every record
 * written before versions were kept, and every version-1 record since: version 1 writes none).
 * The layout's version is `v` of the text's `meta` map, read the same way.
 *
 * Adding a version of a record type:
 * 1. raise its entry of `schemaVersions` (say to 2) and write `v: 2` in its writers;
 * 2. append to its list in `migrations` one function that turns a version-1 record, as plain
 *    JSON, into a version-2 one (`migrations.annotation[0]` is 1 → 2, `[1]` would be 2 → 3);
 * 3. its parser reads `migrateRecord(kind, record)`, so every older record is read as current.
 * A change that an older build must not read wrongly also raises the protocol version
 * (shared/protocol/protocol-version.ts).
 *
 * A record of a version newer than this build's is read for the fields this build knows;
 * fields it does not know are ignored, never refused and never removed (a Y.Map record is
 * written field by field, so nothing rewrites them). Such a record is never grounds for a
 * refusal that would repeat on every reconnect.
 */
export const schemaVersions = {
  /** The top-level types of the three Y.Docs (shared/model/doc-layout.ts). */
  layout: 1,
  /** Annotation records of `<id>/notes` (shared/notes/annotations.ts). */
  annotation: 1,
  /** Run records of `<id>/runs`, written by the server (shared/protocol/run-record.ts). */
  run: 1,
  /** Aside records of `<id>/runs` (shared/protocol/aside-records.ts). */
  aside: 1,
} as const;

export type SchemaKind = keyof typeof schemaVersions;

/** The field that holds a record's schema version. */
export const versionField = 'v';

export type Migration = (record: Record<string, unknown>) => Record<string, unknown>;

/** One function per step, oldest first: `migrations[kind][n - 1]` turns version n into n + 1. */
const migrations: { readonly [K in SchemaKind]: readonly Migration[] } = {
  layout: [],
  annotation: [],
  run: [],
  aside: [],
};

/** The schema version `record` states: `v` when it is a positive integer, 1 without one; null when malformed. */
export function statedVersion(record: Record<string, unknown>): number | null {
  const stated = record[versionField];
  if (stated === undefined) return 1;
  return typeof stated === 'number' && Number.isInteger(stated) && stated >= 1 ? stated : null;
}

/**
 * `record` (plain JSON) read as the current version of `kind`: older versions go through every
 * step from theirs; the current and newer ones come back as they are (`newer` says which),
 * their unknown fields for the parser to ignore. Null for a malformed `v`.
 */
export function migrateRecord(
  kind: SchemaKind,
  record: Record<string, unknown>,
  steps: readonly Migration[] = migrations[kind],
): { record: Record<string, unknown>; newer: boolean } | null {
  const version = statedVersion(record);
  if (version === null) return null;
  // The current version is one past the last step: `steps` and `schemaVersions` move together.
  const current = steps === migrations[kind] ? schemaVersions[kind] : steps.length + 1;
  let migrated = record;
  for (let step = version; step < current; step++) migrated = { ...steps[step - 1](migrated), [versionField]: step + 1 };
  return { record: migrated, newer: version > current };
}
