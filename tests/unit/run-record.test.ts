import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { runsParts } from '../../shared/model/doc-layout.ts';
import { parseRunRecord, readRunRecords, type RunRecord } from '../../shared/protocol/run-record.ts';

const record: RunRecord = {
  runId: 'r1',
  docId: 'doc1',
  state: 'review',
  items: [
    { instructionId: 'i1', blockId: 'b1', instruction: 'uppercase', quote: 'text', currentText: 'text', drifted: false, outcome: 'changed', reason: null, decision: null, variantsWanted: 1, variants: [], chosen: null },
    {
      instructionId: 'i2',
      blockId: 'b2',
      instruction: 'sing',
      quote: 'more',
      currentText: 'more or less',
      drifted: true,
      outcome: 'refused',
      reason: 'I did not understand.',
      decision: null,
      variantsWanted: 1,
      variants: [],
      chosen: null,
    },
  ],
  changes: [{ op: 'replace_block', blockId: 'b1', instructionId: 'i1', before: 'text', after: 'TEXT' }],
  createdAt: '2025-01-02T03:04:05.000Z',
  createdBy: { id: 'ed', name: 'Ed' },
  updatedAt: '2025-01-02T03:05:00.000Z',
  summary: 'Done.',
  error: null,
  claimedBy: { id: 'reference-agent', name: 'Reference agent' },
  lease: null,
  agent: { name: 'Reference agent', model: null },
  activity: [{ at: '2025-01-02T03:04:30.000Z', text: 'changing block 1 for instruction 1' }],
  usage: null,
  decidedBy: null,
  reverted: null,
};

describe('parseRunRecord', () => {
  it('reads back a record, dropping fields it does not know', () => {
    expect(parseRunRecord({ ...record, extra: 1 })).toEqual({ ok: true, record });
  });

  it('reads a record without a summary as one with a null summary', () => {
    const { summary: _summary, ...withoutSummary } = record;
    expect(parseRunRecord(withoutSummary)).toEqual({ ok: true, record: { ...record, summary: null } });
  });

  it('reads a record written before claims were recorded as unclaimed', () => {
    const { claimedBy: _claimedBy, lease: _lease, ...older } = record;
    expect(parseRunRecord(older)).toEqual({ ok: true, record: { ...record, claimedBy: null, lease: null } });
  });

  it('[RUN5] reads items written before drift was kept as without current text, not drifted', () => {
    const items = record.items.map(({ currentText: _currentText, drifted: _drifted, ...item }) => item);
    expect(parseRunRecord({ ...record, items })).toEqual({
      ok: true,
      record: { ...record, items: record.items.map((item) => ({ ...item, currentText: null, drifted: false })) },
    });
  });

  it('reads a decided record with who decided it, and an older one as decided by nobody known', () => {
    const decided = { ...record, state: 'accepted', decidedBy: { id: 'ed', name: 'Ed' } };
    expect(parseRunRecord(decided)).toEqual({ ok: true, record: decided });
    const { decidedBy: _decidedBy, ...older } = decided;
    expect(parseRunRecord(older)).toEqual({ ok: true, record: { ...decided, decidedBy: null } });
  });

  it('reads a claimed record with its lease', () => {
    const claimed = { ...record, state: 'claimed', lease: { expiresAt: '2025-01-02T03:05:30.000Z' } };
    expect(parseRunRecord(claimed)).toEqual({ ok: true, record: claimed });
  });

  it('reads an item that the agent neither changed nor refused', () => {
    const items = [{ ...record.items[0], outcome: 'unchanged' }];
    expect(parseRunRecord({ ...record, items })).toEqual({ ok: true, record: { ...record, items } });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['an unknown state', { state: 'lost' }, 'state must be one of'],
    ['a malformed run id', { runId: 'r 1' }, 'runId must be an id'],
    ['a malformed document id', { docId: 'a/b' }, 'docId must be a document id'],
    ['a time that is not ISO', { createdAt: 1735787045000 }, 'createdAt must be an ISO time'],
    ['an author without an id', { createdBy: { name: 'Ed' } }, 'createdBy id must be'],
    ['an item with an unknown outcome', { items: [{ ...record.items[0], outcome: 'maybe' }] }, 'items[0] outcome must be one of'],
    ['a change of an unknown op', { changes: [{ ...record.changes[0], op: 'rewrite' }] }, 'changes[0] op must be an op kind'],
    ['an error that is not text', { error: { code: 'X' } }, 'error must be a string or null'],
    ['a claimant without a name', { claimedBy: { id: 'a' } }, 'claimedBy name must be'],
    ['a lease without a time', { lease: { expiresAt: 'soon' } }, 'lease must be'],
    ['a decider without an id', { decidedBy: { name: 'Ed' } }, 'decidedBy id must be'],
    ['an item whose drift is not a boolean', { items: [{ ...record.items[0], drifted: 'yes' }] }, 'items[0] drifted must be a boolean'],
    ['an item whose current text is a number', { items: [{ ...record.items[0], currentText: 3 }] }, 'items[0] currentText must be'],
  ])('refuses %s', (_label, patch, reason) => {
    const result = parseRunRecord({ ...record, ...patch });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toContain(reason);
  });

  it('refuses what is not an object', () => {
    for (const value of [null, 'r1', [record]]) expect(parseRunRecord(value).ok).toBe(false);
  });
});

describe('readRunRecords', () => {
  it('lists the valid records of a runs Y.Doc newest first and reports the rest', () => {
    const ydoc = new Y.Doc();
    const runs = runsParts(ydoc).runs;
    runs.set('r1', record);
    runs.set('r2', { ...record, runId: 'r2', state: 'queued', createdAt: '2025-02-01T00:00:00.000Z' });
    runs.set('r3', { ...record, runId: 'r9' });
    runs.set('r4', { broken: true });
    const read = readRunRecords(ydoc);
    expect(read.runs.map((run) => run.runId)).toEqual(['r2', 'r1']);
    expect(read.invalid.map((entry) => entry.id).sort()).toEqual(['r3', 'r4']);
  });
});
