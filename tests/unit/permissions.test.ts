import { describe, expect, it } from 'vitest';
import { roles, type Role } from '../../shared/protocol/claims.ts';
import { actions, coversDoc, may, mayCreateDocs, mayWritePart, type Action } from '../../shared/protocol/permissions.ts';

/**
 * README's "Security model" table, row by row, as the roles each action is for:
 *
 * | editor    | text: read, write | annotations: create, reply, resolve, edit instructions | runs: send, accept, discard | create documents, read the audit log |
 * | commenter | text: read | annotations: create comments, reply; change or delete only their own comments | runs: read |
 * | viewer    | text: read | annotations: read | runs: read |
 * | agent     | text: read (read-only connection) | annotations: read | runs: list, claim, write through the applier, complete, fail |
 */
const spec: Record<Action, Role[]> = {
  'doc.create': ['editor'],
  'doc.read': ['editor', 'commenter', 'viewer', 'agent'],
  'text.write': ['editor'],
  'notes.comment': ['editor', 'commenter'],
  'notes.instruct': ['editor'],
  'notes.resolve': ['editor'],
  'notes.moderate': ['editor'],
  'run.send': ['editor'],
  'run.decide': ['editor'],
  'run.work': ['agent'],
  'audit.read': ['editor'],
};

describe('permissions', () => {
  it('has exactly the actions of the security model', () => {
    expect([...actions].sort()).toEqual(Object.keys(spec).sort());
  });

  it.each(Object.entries(spec))('gives %s to exactly the roles the security model names', (action, allowed) => {
    for (const role of roles) expect(may(role, action as Action), `${role} ${action}`).toBe(allowed.includes(role));
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

describe('document scope', () => {
  const docA = 'aaaaaaaaaaaaaaaaaaaaaa';
  const docB = 'bbbbbbbbbbbbbbbbbbbbbb';

  it('lets a token without a document act on every document', () => {
    expect(coversDoc({}, docA) && coversDoc({}, docB)).toBe(true);
  });

  it('lets a token for one document act on that document only', () => {
    expect(coversDoc({ doc: docA }, docA)).toBe(true);
    expect(coversDoc({ doc: docA }, docB)).toBe(false);
  });

  it('lets no token for one document create documents, whatever its role', () => {
    expect(mayCreateDocs({ role: 'editor' })).toBe(true);
    expect(mayCreateDocs({ role: 'editor', doc: docA })).toBe(false);
    expect(mayCreateDocs({ role: 'commenter' })).toBe(false);
  });
});
