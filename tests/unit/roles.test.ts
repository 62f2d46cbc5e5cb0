import { describe, expect, it } from 'vitest';
import { may, mayWritePart } from '../../server/auth/roles.ts';
import { roles } from '../../shared/claims.ts';

describe('roles', () => {
  it('lets only editors create documents', () => {
    expect(roles.filter((role) => may(role, 'docs.create'))).toEqual(['editor']);
  });

  it('lets every role read documents', () => {
    expect(roles.every((role) => may(role, 'docs.read'))).toBe(true);
  });

  it('lets only editors write the text', () => {
    expect(roles.filter((role) => mayWritePart(role, 'text'))).toEqual(['editor']);
  });

  it('lets editors and commenters write the notes', () => {
    expect(roles.filter((role) => mayWritePart(role, 'notes'))).toEqual(['editor', 'commenter']);
  });

  it('lets no role write the runs mirror', () => {
    expect(roles.filter((role) => mayWritePart(role, 'runs'))).toEqual([]);
  });

  it('gives agents no write access over Yjs at all', () => {
    expect((['text', 'notes', 'runs'] as const).some((part) => mayWritePart('agent', part))).toBe(false);
  });
});
