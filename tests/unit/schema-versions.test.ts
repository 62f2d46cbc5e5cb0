import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { migrateRecord, schemaVersions, statedVersion, type Migration } from '../../shared/model/schema-versions.ts';
import { docParts, readMeta } from '../../shared/model/doc-layout.ts';
import { parseAnnotation } from '../../shared/notes/annotations.ts';
import { parseRunRecord } from '../../shared/protocol/run-record.ts';
import { looseAnchor } from '../helpers/notes.ts';

describe('schema versions', () => {
  it('[VER5] are 1 for every record type and the layout today, and 1 for a record without one', () => {
    expect(Object.values(schemaVersions)).toEqual([1, 1, 1, 1]);
    expect(statedVersion({})).toBe(1);
    expect(statedVersion({ v: 3 })).toBe(3);
    for (const v of [0, -1, 1.5, '2', null]) expect(statedVersion({ v })).toBeNull();
    const ydoc = new Y.Doc();
    expect(readMeta(ydoc).layout).toBe(1);
    docParts(ydoc).meta.set('v', 2);
    expect(readMeta(ydoc).layout).toBe(2);
  });

  it('[VER5] take an older record through every step, and give a newer one back as it is', () => {
    const steps: Migration[] = [
      ({ name, ...rest }) => ({ ...rest, title: name }),
      ({ tags, ...rest }) => ({ ...rest, labels: String(tags).split(',') }),
    ];
    expect(migrateRecord('annotation', { name: 'N', tags: 'a,b' }, steps)).toEqual({ record: { title: 'N', labels: ['a', 'b'], v: 3 }, newer: false });
    expect(migrateRecord('annotation', { v: 2, title: 'N', tags: 'a' }, steps)).toEqual({ record: { title: 'N', labels: ['a'], v: 3 }, newer: false });
    expect(migrateRecord('annotation', { v: 3, title: 'N' }, steps)).toEqual({ record: { v: 3, title: 'N' }, newer: false });
    expect(migrateRecord('annotation', { v: 4, title: 'N', more: true }, steps)).toEqual({ record: { v: 4, title: 'N', more: true }, newer: true });
    expect(migrateRecord('annotation', { v: 'x' }, steps)).toBeNull();
  });

  it('[VER5] let the parsers read a record of a newer version for the fields they know, and refuse a malformed version', () => {
    const comment = {
      id: 'c1', kind: 'comment', anchor: looseAnchor, blockId: 'b1', quote: 'q', author: { id: 'a', name: 'A' },
      createdAt: 1, resolved: false, turns: [{ author: { id: 'a', name: 'A' }, text: 't', at: 1 }],
    };
    expect(parseAnnotation(comment).ok).toBe(true);
    expect(parseAnnotation({ ...comment, v: 2, color: 'teal' })).toEqual(parseAnnotation(comment));
    expect(parseAnnotation({ ...comment, v: 0 })).toEqual({ ok: false, reason: 'v must be a positive integer' });
    expect(parseRunRecord({ v: 'x' })).toEqual({ ok: false, reason: 'v must be a positive integer' });
  });
});
