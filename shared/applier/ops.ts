import { isOpKind, opKinds, type OpKind } from './op-kinds.ts';

/**
 * The ops an agent sends to change a document (docs/api.md, "Ops"), and their one parser.
 *
 * Every op names the instruction it answers. `expectHash` is the `hash` of the block as the
 * agent read it (`GET /api/docs/:id`, or the claim's document). Whether an op may be applied —
 * allowlist, fence, staleness, Markdown — is the applier's business (shared/applier/applier.ts); this
 * file only checks the shape.
 */

export interface ReplaceBlockOp {
  op: 'replace_block';
  blockId: string;
  markdown: string;
  expectHash: string;
  instructionId: string;
}

export interface InsertAfterOp {
  op: 'insert_after';
  blockId: string;
  markdown: string;
  instructionId: string;
}

export interface DeleteBlockOp {
  op: 'delete_block';
  blockId: string;
  expectHash: string;
  instructionId: string;
}

/**
 * VAR1: 2–4 alternative replacements of one block, for an instruction that asked for variants.
 * Each candidate is validated as a `replace_block`'s Markdown; the first is written.
 */
export interface ProposeVariantsOp {
  op: 'propose_variants';
  blockId: string;
  expectHash: string;
  instructionId: string;
  candidates: string[];
}

export type Op = ReplaceBlockOp | InsertAfterOp | DeleteBlockOp | ProposeVariantsOp;

/** The Markdown an op writes: its one text, its candidates, or none (a delete). */
export function markdownsOf(op: Op): readonly string[] {
  if (op.op === 'delete_block') return [];
  if (op.op === 'propose_variants') return op.candidates;
  return [op.markdown];
}

/** VAR1: an instruction asks for 1 to 4 answers; a `propose_variants` op carries 2 to 4. */
export const minVariants = 2;
export const maxVariants = 4;

/** At most this many ops in one batch. */
export const maxOpsPerBatch = 200;

/** At most this many characters of Markdown in one op. */
export const maxOpMarkdownLength = 100_000;

/**
 * At most this many lines of Markdown in one batch, all its ops together (LIMIT11): every block
 * takes a line at least, so this bounds the blocks one batch can write before any is parsed.
 */
export const maxBatchMarkdownLines = 1_000;

/** Block ids, instruction ids and hashes: non-empty, at most this many characters. */
export const maxOpIdLength = 100;

export interface InvalidOpError {
  code: 'INVALID_OP';
  /** The position of the bad op in the batch, or -1 when the batch as a whole is wrong. */
  index: number;
  message: string;
}

export type ParseOpsResult = { ok: true; ops: Op[] } | { ok: false; error: InvalidOpError };

const fieldsOf: Record<OpKind, readonly string[]> = {
  replace_block: ['op', 'blockId', 'markdown', 'expectHash', 'instructionId'],
  insert_after: ['op', 'blockId', 'markdown', 'instructionId'],
  delete_block: ['op', 'blockId', 'expectHash', 'instructionId'],
  propose_variants: ['op', 'blockId', 'expectHash', 'instructionId', 'candidates'],
};

/**
 * Reads a batch of ops from untrusted JSON. Never throws: returns the ops, or the first problem
 * found (the batch first, then each op in order) as `INVALID_OP` with a sentence for a person.
 * Unknown fields are refused rather than ignored, so that a misspelt field is never silently
 * dropped.
 */
export function parseOps(value: unknown): ParseOpsResult {
  if (!Array.isArray(value)) return invalid(-1, 'The ops must be a list.');
  if (value.length === 0) return invalid(-1, 'The list of ops is empty; send at least one op.');
  if (value.length > maxOpsPerBatch) {
    return invalid(-1, `A batch holds at most ${maxOpsPerBatch} ops; this one has ${value.length}.`);
  }
  const ops: Op[] = [];
  for (let index = 0; index < value.length; index++) {
    const problem = checkOp(value[index]);
    if (problem !== null) return invalid(index, `The op at index ${index} ${problem}`);
    ops.push(copyOp(value[index] as Op));
  }
  let lines = 0;
  for (const op of ops) for (const markdown of markdownsOf(op)) lines += lineCount(markdown);
  if (lines > maxBatchMarkdownLines) {
    return invalid(-1, `A batch writes at most ${maxBatchMarkdownLines.toLocaleString('en-US')} lines of Markdown; this one has ${lines.toLocaleString('en-US')}.`);
  }
  return { ok: true, ops };
}

/** What is wrong with one op, as the end of a sentence, or null. */
function checkOp(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'is not an object.';
  const record = value as Record<string, unknown>;
  const kind = record.op;
  if (!isOpKind(kind)) {
    const named = typeof kind === 'string' ? `"${kind.slice(0, 40)}"` : 'no kind';
    return `has ${named}; "op" must be one of ${opKinds.join(', ')}.`;
  }
  const fields = fieldsOf[kind];
  const unknown = Object.keys(record).find((key) => !fields.includes(key));
  if (unknown !== undefined) return `has a field that ${kind} does not take: "${unknown.slice(0, 40)}".`;
  for (const field of fields) {
    if (field === 'op') continue;
    if (field === 'candidates') {
      const problem = checkCandidates(record.candidates);
      if (problem !== null) return `(${kind}) ${problem}`;
      continue;
    }
    const problem = checkField(field, record[field], field === 'markdown' ? maxOpMarkdownLength : maxOpIdLength);
    if (problem !== null) return `(${kind}) ${problem}`;
  }
  return null;
}

/** VAR1: 2 to 4 strings of Markdown, each as long as an op's Markdown may be. */
function checkCandidates(value: unknown): string | null {
  if (value === undefined) return 'lacks "candidates".';
  if (!Array.isArray(value)) return 'has a field "candidates" that is not a list.';
  if (value.length < minVariants || value.length > maxVariants) {
    return `has ${value.length} candidates; propose ${minVariants} to ${maxVariants}.`;
  }
  for (const [index, candidate] of value.entries()) {
    const problem = checkField(`candidates[${index}]`, candidate, maxOpMarkdownLength, true);
    if (problem !== null) return problem;
  }
  return null;
}

/** Ids and hashes must be non-empty; Markdown may be empty here (the applier refuses it). */
function checkField(field: string, value: unknown, maxLength: number, markdown = field === 'markdown'): string | null {
  if (value === undefined) return `lacks "${field}".`;
  if (typeof value !== 'string') return `has a field "${field}" that is not a string.`;
  if (value === '' && !markdown) return `has an empty field "${field}".`;
  if (value.length > maxLength) {
    return `has a field "${field}" longer than ${maxLength.toLocaleString('en-US')} characters.`;
  }
  return null;
}

/** A fresh plain object with exactly the op's fields, so later changes to the input do not leak in. */
function copyOp(op: Op): Op {
  switch (op.op) {
    case 'replace_block':
      return { op: op.op, blockId: op.blockId, markdown: op.markdown, expectHash: op.expectHash, instructionId: op.instructionId };
    case 'insert_after':
      return { op: op.op, blockId: op.blockId, markdown: op.markdown, instructionId: op.instructionId };
    case 'delete_block':
      return { op: op.op, blockId: op.blockId, expectHash: op.expectHash, instructionId: op.instructionId };
    case 'propose_variants':
      return { op: op.op, blockId: op.blockId, expectHash: op.expectHash, instructionId: op.instructionId, candidates: [...op.candidates] };
  }
}

function invalid(index: number, message: string): ParseOpsResult {
  return { ok: false, error: { code: 'INVALID_OP', index, message } };
}

function lineCount(text: string): number {
  let lines = 1;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) lines++;
  return lines;
}
