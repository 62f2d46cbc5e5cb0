import { describe, expect, it } from 'vitest';
import { docRowToRecord, type DocRow } from '../../server/store/doc-rows.ts';

const row = (kind: string): DocRow => ({ id: 'doc-1', title: 'Plan', kind, created_at: 1, updated_at: 2, deleted_at: null });

describe('a stored document row', () => {
  it('[DOC5] reads the kinds this server knows', () => {
    expect(docRowToRecord(row('text')).kind).toBe('text');
    expect(docRowToRecord(row('page')).kind).toBe('page');
  });

  it('[DOC5] of a kind this server does not know is an error naming it, never a text document', () => {
    expect(() => docRowToRecord(row('sheet'))).toThrow('Document doc-1 is of kind "sheet", which this server does not know');
  });
});
