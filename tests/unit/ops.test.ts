import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { maxOpIdLength, maxOpMarkdownLength, maxOpsPerBatch, parseOps, type Op } from '../../shared/applier/ops.ts';

/*
 * parseOps: the one reader of an agent's batch (docs/api.md, "Ops"). Replay a fast-check failure
 * with the seed and path it prints: fc.assert(property, {seed, path}).
 */

const replace: Op = { op: 'replace_block', blockId: 'b1', markdown: 'New text', expectHash: 'h1', instructionId: 'i1' };
const insert: Op = { op: 'insert_after', blockId: 'b1', markdown: 'More', instructionId: 'i1' };
const remove: Op = { op: 'delete_block', blockId: 'b2', expectHash: 'h2', instructionId: 'i2' };

function refusal(value: unknown) {
  const result = parseOps(value);
  if (result.ok) throw new Error('expected a refusal');
  return result.error;
}

describe('parseOps', () => {
  it('reads a batch of each kind of op', () => {
    expect(parseOps([replace, insert, remove])).toEqual({ ok: true, ops: [replace, insert, remove] });
  });

  it('returns fresh objects, so later changes to the input do not reach the ops', () => {
    const input = [{ ...replace }];
    const result = parseOps(input);
    input[0].blockId = 'changed';
    expect(result.ok && result.ops[0].blockId).toBe('b1');
  });

  it('refuses a batch that is not a list, is empty, or holds more than 200 ops, at index -1', () => {
    for (const value of [undefined, null, 'ops', 3, { ops: [replace] }, [], Array(maxOpsPerBatch + 1).fill(insert)]) {
      expect(refusal(value)).toMatchObject({ code: 'INVALID_OP', index: -1 });
    }
    expect(parseOps(Array(maxOpsPerBatch).fill(insert)).ok).toBe(true);
  });

  it('refuses an op that is not an object, or of an unknown kind, at its index', () => {
    expect(refusal([insert, 'replace_block'])).toMatchObject({ code: 'INVALID_OP', index: 1 });
    expect(refusal([insert, insert, [insert]])).toMatchObject({ code: 'INVALID_OP', index: 2 });
    expect(refusal([null])).toMatchObject({ index: 0 });
    expect(refusal([{ ...insert, op: 'move_block' }]).message).toBe(
      'The op at index 0 has "move_block"; "op" must be one of replace_block, insert_after, delete_block, propose_variants.',
    );
    expect(refusal([{ blockId: 'b1' }]).message).toMatch(/has no kind/);
  });

  it('refuses a missing field, a field that is not a string, and an empty id or hash', () => {
    const { markdown: _markdown, ...noMarkdown } = replace as Extract<Op, { op: 'replace_block' }>;
    expect(refusal([noMarkdown]).message).toBe('The op at index 0 (replace_block) lacks "markdown".');
    expect(refusal([insert, { ...remove, expectHash: 7 }]).message).toBe(
      'The op at index 1 (delete_block) has a field "expectHash" that is not a string.',
    );
    expect(refusal([{ ...insert, instructionId: '' }]).message).toBe('The op at index 0 (insert_after) has an empty field "instructionId".');
    expect(refusal([{ ...remove, blockId: null }])).toMatchObject({ index: 0 });
  });

  it('refuses unknown fields, including a field that belongs to another kind', () => {
    expect(refusal([{ ...insert, expectHash: 'h1' }]).message).toBe(
      'The op at index 0 has a field that insert_after does not take: "expectHash".',
    );
    expect(refusal([{ ...remove, markdown: '' }])).toMatchObject({ index: 0 });
    expect(refusal([replace, { ...replace, note: 'why' }])).toMatchObject({ index: 1 });
    expect(refusal([JSON.parse('{"op":"insert_after","blockId":"b","markdown":"m","instructionId":"i","__proto__":{}}')])).toMatchObject({
      index: 0,
    });
  });

  it('takes ids up to 100 characters and Markdown up to 100,000 characters', () => {
    const longId = 'x'.repeat(maxOpIdLength);
    const longMarkdown = 'y'.repeat(maxOpMarkdownLength);
    expect(parseOps([{ ...replace, blockId: longId, expectHash: longId, instructionId: longId, markdown: longMarkdown }]).ok).toBe(true);
    expect(refusal([insert, { ...insert, blockId: longId + 'x' }]).message).toBe(
      'The op at index 1 (insert_after) has a field "blockId" longer than 100 characters.',
    );
    expect(refusal([{ ...insert, markdown: longMarkdown + 'y' }]).message).toBe(
      'The op at index 0 (insert_after) has a field "markdown" longer than 100,000 characters.',
    );
  });

  it('leaves empty Markdown to the applier, which knows it holds no block', () => {
    expect(parseOps([{ ...insert, markdown: '' }]).ok).toBe(true);
  });

  it('reports the first bad op', () => {
    expect(refusal([insert, { ...insert, op: 'x' }, { op: 'y' }])).toMatchObject({ index: 1 });
  });

  it('writes its messages as sentences for a person', () => {
    for (const value of [null, [], [1], [{ op: 'x' }], [{ ...insert, markdown: 3 }], [{ ...insert, extra: 1 }]]) {
      expect(refusal(value).message).toMatch(/^[A-Z].*\.$/);
    }
  });
});

describe('parseOps on arbitrary input (fast-check)', () => {
  const check = (value: unknown, result: ReturnType<typeof parseOps>) => {
    if (result.ok) {
      expect(Array.isArray(value)).toBe(true);
      expect(result.ops.length).toBe((value as unknown[]).length);
      return;
    }
    expect(result.error.code).toBe('INVALID_OP');
    expect(Number.isInteger(result.error.index)).toBe(true);
    expect(result.error.index).toBeGreaterThanOrEqual(-1);
    if (Array.isArray(value)) expect(result.error.index).toBeLessThan(value.length);
    expect(result.error.message).toMatch(/^[A-Z].*\.$/);
  };

  it('never throws on arbitrary JSON and answers ops or INVALID_OP', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => check(value, parseOps(value))),
      { numRuns: 500 },
    );
  });

  it('never throws on near-ops: records of op fields with values of any JSON type', () => {
    const fieldValue = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.constantFrom('replace_block', 'insert_after', 'delete_block', ''),
      fc.jsonValue({ maxDepth: 1 }),
    );
    const nearOp = fc.dictionary(
      fc.constantFrom('op', 'blockId', 'markdown', 'expectHash', 'instructionId', 'extra', '__proto__', 'constructor'),
      fieldValue,
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(nearOp, fc.jsonValue({ maxDepth: 2 })), { maxLength: 5 }), (value) => {
        const parsed = JSON.parse(JSON.stringify(value));
        check(parsed, parseOps(parsed));
      }),
      { numRuns: 500 },
    );
  });

  it('reads back every well-formed batch unchanged', () => {
    const id = fc.string({ minLength: 1, maxLength: maxOpIdLength });
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ op: fc.constant('replace_block' as const), blockId: id, markdown: fc.string(), expectHash: id, instructionId: id }),
      fc.record({ op: fc.constant('insert_after' as const), blockId: id, markdown: fc.string(), instructionId: id }),
      fc.record({ op: fc.constant('delete_block' as const), blockId: id, expectHash: id, instructionId: id }),
    );
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 20 }), (ops) => {
        expect(parseOps(JSON.parse(JSON.stringify(ops)))).toEqual({ ok: true, ops });
      }),
      { numRuns: 200 },
    );
  });
});
