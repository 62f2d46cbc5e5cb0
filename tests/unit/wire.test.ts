import { describe, expect, it } from 'vitest';
import { CompleteBody, FailBody, OpsBody, QueuedQuery } from '../../shared/wire/agent.ts';
import { NewAnnotationBody } from '../../shared/wire/annotations.ts';
import { AuditQuery } from '../../shared/wire/audit.ts';
import { NewDocBody } from '../../shared/wire/docs.ts';
import { errorEnvelope, ErrorEnvelope } from '../../shared/wire/errors.ts';
import { readWire } from '../../shared/wire/parse.ts';
import { DiscardBody } from '../../shared/wire/runs.ts';

/* The wire schemas of shared/wire on their own: what each reads, what it refuses and where. */

describe('NewDocBody', () => {
  it('reads a text document with kind and markdown defaulted', () => {
    expect(readWire(NewDocBody, { title: 'T' })).toEqual({ ok: true, value: { title: 'T', kind: 'text', markdown: '' } });
  });

  it('reads a page with its html', () => {
    expect(readWire(NewDocBody, { title: 'P', kind: 'page', html: '<p>x</p>' })).toEqual({
      ok: true,
      value: { title: 'P', kind: 'page', html: '<p>x</p>' },
    });
  });

  it.each([
    ['an array', [], 'The body must be a JSON object.'],
    ['an unknown kind', { title: 'x', kind: 'video' }, 'kind must be "text" or "page".'],
    ['html on a text document', { title: 'x', html: '<p>' }, 'html is only for documents of kind "page".'],
    ['markdown on a page', { title: 'x', kind: 'page', html: '<p>', markdown: 'x' }, 'A page takes html, not markdown.'],
    ['a numeric title', { title: 5 }, 'title must be a string.'],
  ])('refuses %s with its sentence', (_label, body, message) => {
    expect(readWire(NewDocBody, body)).toMatchObject({ ok: false, problem: { message } });
  });

  it('counts a source in UTF-8 bytes, not characters', () => {
    const read = readWire(NewDocBody, { title: 'x', markdown: 'é'.repeat(500_001) });
    expect(read).toMatchObject({ ok: false, problem: { field: 'markdown' } });
  });
});

describe('NewAnnotationBody', () => {
  it('names the field of the first problem, in the order kind, blockId, text', () => {
    expect(readWire(NewAnnotationBody, { kind: 'note', blockId: 7, text: '' })).toMatchObject({ ok: false, problem: { field: 'kind' } });
    expect(readWire(NewAnnotationBody, { kind: 'comment', blockId: 7, text: '' })).toMatchObject({ ok: false, problem: { field: 'blockId' } });
    expect(readWire(NewAnnotationBody, { kind: 'comment', blockId: 'b', text: ' ' })).toMatchObject({ ok: false, problem: { field: 'text' } });
  });
});

describe('DiscardBody', () => {
  it('trims the reason and leaves an absent one out', () => {
    expect(readWire(DiscardBody, { reason: '  too long \n' })).toEqual({ ok: true, value: { reason: 'too long' } });
    expect(readWire(DiscardBody, {})).toEqual({ ok: true, value: {} });
  });

  it('refuses a null, blank or overlong reason, and an array for a body', () => {
    for (const reason of [null, ' \t', 'x'.repeat(2001)]) {
      expect(readWire(DiscardBody, { reason })).toMatchObject({ ok: false, problem: { field: 'reason' } });
    }
    expect(readWire(DiscardBody, ['why'])).toMatchObject({ ok: false, problem: { field: null } });
  });
});

describe('the agent bodies', () => {
  it('read an empty complete body as no summary and no refusals', () => {
    expect(readWire(CompleteBody, undefined)).toEqual({ ok: true, value: { summary: null, refusals: [] } });
  });

  it('say which refusal of a complete body is wrong', () => {
    const read = readWire(CompleteBody, { refusals: [{ instructionId: 'a', reason: 'fine' }, { instructionId: 'b', reason: ' ' }] });
    expect(read).toMatchObject({ ok: false, problem: { field: 'refusals', path: 'refusals.1.reason' } });
  });

  it('refuse an empty idempotency key and a blank failure message', () => {
    expect(readWire(OpsBody, { idempotencyKey: '', ops: [] })).toMatchObject({ ok: false, problem: { field: 'idempotencyKey' } });
    expect(readWire(FailBody, { message: '  ' })).toMatchObject({ ok: false, problem: { field: 'message' } });
  });

  it('read the wait of a long poll as seconds from 0 to 30', () => {
    expect(readWire(QueuedQuery, { state: 'queued' })).toEqual({ ok: true, value: { state: 'queued', wait: 0 } });
    expect(readWire(QueuedQuery, { state: 'queued', wait: '2.5' })).toEqual({ ok: true, value: { state: 'queued', wait: 2.5 } });
    for (const wait of ['31', '-1', 'soon', 'Infinity']) {
      expect(readWire(QueuedQuery, { state: 'queued', wait })).toMatchObject({ ok: false, problem: { field: 'wait' } });
    }
    expect(readWire(QueuedQuery, { state: 'claimed' })).toMatchObject({ ok: false, problem: { field: 'state' } });
  });
});

describe('AuditQuery', () => {
  it('reads each parameter given once as a whole number within its bound', () => {
    expect(readWire(AuditQuery, { before: ['12'], limit: ['200'] })).toEqual({ ok: true, value: { before: 12, limit: 200 } });
    for (const limit of [['0'], ['201'], ['1', '2'], ['1.5'], ['01']]) {
      expect(readWire(AuditQuery, { limit })).toMatchObject({ ok: false, problem: { field: 'limit' } });
    }
  });
});

describe('ErrorEnvelope', () => {
  it('carries a refusal’s details beside its code and message', () => {
    const envelope = errorEnvelope('STALE_BLOCK', 'The block changed.', { index: 0, blockId: 'b1' });
    expect(envelope).toEqual({ error: { code: 'STALE_BLOCK', message: 'The block changed.', index: 0, blockId: 'b1' } });
    expect(readWire(ErrorEnvelope, envelope)).toEqual({ ok: true, value: envelope });
  });

  it('refuses an answer without a code', () => {
    expect(readWire(ErrorEnvelope, { error: { message: 'no code' } })).toMatchObject({ ok: false });
  });
});
