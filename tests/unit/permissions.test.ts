import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { roles, type Role } from '../../shared/protocol/claims.ts';
import { actions, coversDoc, may, mayCreateDocs, mayWritePart, type Action } from '../../shared/protocol/permissions.ts';

/**
 * What each phrase of README's "Security model" table grants, by column. A phrase the table
 * uses that is missing here fails the test, so the table and the code cannot drift apart.
 * Reading (`read` under annotations and runs) comes with reading the document.
 */
const grants: Record<string, Record<string, Action[]>> = {
  text: { read: ['doc.read'], 'read (its connection is read-only)': ['doc.read'], write: ['text.write'] },
  annotations: {
    read: [],
    create: ['notes.comment', 'notes.instruct'],
    'create comments': ['notes.comment'],
    reply: ['notes.comment'],
    'change or delete only their own comments': ['notes.comment'],
    resolve: ['notes.resolve'],
    'edit instructions': ['notes.instruct', 'notes.moderate'],
  },
  runs: {
    read: [],
    send: ['run.send'],
    accept: ['run.decide'],
    discard: ['run.decide'],
    list: ['run.work'],
    claim: ['run.work'],
    'write through the applier': ['run.work'],
    complete: ['run.work'],
    fail: ['run.work'],
    'ask or steer': ['run.aside'],
    'answer asides': ['run.work'],
  },
  also: { '—': [], 'create documents': ['doc.create'], 'trash and restore documents': ['doc.trash'], 'read the audit log': ['audit.read'], 'share documents': ['doc.share'] },
};

/** The roles README's "Security model" table gives each action, read from README.md itself. */
function securityModel(): Record<Action, Role[]> {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Security model'));
  const tableLines = section.slice(section.indexOf('\n|')).split('\n').slice(1);
  const table = tableLines.slice(0, tableLines.findIndex((line) => !line.startsWith('|'))).map((line) => line.split('|').slice(1, -1).map((cell) => cell.trim()));
  const [header, , ...rows] = table;
  const model = Object.fromEntries(actions.map((action) => [action, [] as Role[]])) as Record<Action, Role[]>;
  for (const [role, ...cells] of rows) {
    cells.forEach((cell, column) => {
      for (const phrase of cell.split(/[,;] /)) {
        const granted = grants[header[column + 1]]?.[phrase];
        if (!granted) throw new Error(`README's security model says "${phrase}" under ${header[column + 1]}, which this test does not know`);
        for (const action of granted) if (!model[action].includes(role as Role)) model[action].push(role as Role);
      }
    });
  }
  return model;
}

const spec = securityModel();

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
