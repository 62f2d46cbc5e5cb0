import { maxVariants, minVariants } from '../applier/ops.ts';
/**
 * The ops an agent sends to change a page (PAGE5), and their one parser. Like block ops
 * (shared/applier/ops.ts) each names the instruction it answers and proves with `expectHash`
 * which version of the element it read; whether an op may be applied is the page applier's
 * business (page-applier.ts). This file checks the shape only.
 */

export const pageOpKinds = ['set_text', 'set_attribute', 'replace_element'] as const;
export type PageOpKind = (typeof pageOpKinds)[number];

export function isPageOpKind(value: unknown): value is PageOpKind {
  return typeof value === 'string' && (pageOpKinds as readonly string[]).includes(value);
}

export interface SetTextOp {
  op: 'set_text';
  elementId: string;
  text: string;
  expectHash: string;
  instructionId: string;
}

export interface SetAttributeOp {
  op: 'set_attribute';
  elementId: string;
  name: string;
  value: string;
  expectHash: string;
  instructionId: string;
}

export interface ReplaceElementOp {
  op: 'replace_element';
  elementId: string;
  html: string;
  expectHash: string;
  instructionId: string;
}

/**
 * VAR1 on a page: 2–4 alternative replacements of one element, each checked as the HTML of a
 * `replace_element`; the first is staged. Its change is a `replace_element` keeping them all.
 */
export interface ProposeElementVariantsOp {
  op: 'propose_variants';
  elementId: string;
  expectHash: string;
  instructionId: string;
  candidates: string[];
}

export type PageOp = SetTextOp | SetAttributeOp | ReplaceElementOp | ProposeElementVariantsOp;

/** The kinds of op a page takes: its own, and variants (shared with text, VAR1). */
type PageBatchOpKind = PageOp['op'];
const pageBatchOpKinds: readonly PageBatchOpKind[] = [...pageOpKinds, 'propose_variants'];

/** PAGE6: the attributes `set_attribute` may set. */
export const settableAttributes = ['class', 'href', 'alt', 'title'] as const;

export const maxPageOpsPerBatch = 200;
export const maxPageOpText = 100_000;
const maxIdLength = 100;

export interface InvalidPageOp {
  code: 'INVALID_OP';
  index: number;
  message: string;
}

const fieldsOf: Record<PageBatchOpKind, readonly string[]> = {
  propose_variants: ['op', 'elementId', 'expectHash', 'instructionId', 'candidates'],
  set_text: ['op', 'elementId', 'text', 'expectHash', 'instructionId'],
  set_attribute: ['op', 'elementId', 'name', 'value', 'expectHash', 'instructionId'],
  replace_element: ['op', 'elementId', 'html', 'expectHash', 'instructionId'],
};

/** Fields that may be empty strings; the others are ids and hashes. */
const mayBeEmpty = new Set(['text', 'value', 'html']);

/** Reads a batch of page ops from untrusted JSON. Never throws; unknown fields are refused. */
export function parsePageOps(value: unknown): { ok: true; ops: PageOp[] } | { ok: false; error: InvalidPageOp } {
  if (!Array.isArray(value)) return invalid(-1, 'The ops must be a list.');
  if (value.length === 0) return invalid(-1, 'The list of ops is empty; send at least one op.');
  if (value.length > maxPageOpsPerBatch) return invalid(-1, `A batch holds at most ${maxPageOpsPerBatch} ops; this one has ${value.length}.`);
  const ops: PageOp[] = [];
  for (let index = 0; index < value.length; index++) {
    const problem = checkOp(value[index]);
    if (problem !== null) return invalid(index, `The op at index ${index} ${problem}`);
    const record = value[index] as Record<string, unknown>;
    const fields = fieldsOf[record.op as PageBatchOpKind];
    ops.push(Object.fromEntries(fields.map((field) => [field, Array.isArray(record[field]) ? [...(record[field] as string[])] : record[field]])) as unknown as PageOp);
  }
  return { ok: true, ops };
}

function checkOp(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'is not an object.';
  const record = value as Record<string, unknown>;
  if (!isPageOpKind(record.op) && record.op !== 'propose_variants') {
    const named = typeof record.op === 'string' ? `"${record.op.slice(0, 40)}"` : 'no kind';
    return `has ${named}; "op" must be one of ${pageBatchOpKinds.join(', ')} on a page.`;
  }
  const fields = fieldsOf[record.op as PageBatchOpKind];
  const unknown = Object.keys(record).find((key) => !fields.includes(key));
  if (unknown !== undefined) return `has a field that ${record.op} does not take: "${unknown.slice(0, 40)}".`;
  for (const field of fields) {
    const value = record[field];
    if (field === 'candidates') {
      const problem = candidatesProblem(value);
      if (problem !== null) return `(${record.op}) ${problem}`;
      continue;
    }
    if (value === undefined) return `(${record.op}) lacks "${field}".`;
    if (typeof value !== 'string') return `(${record.op}) has a field "${field}" that is not a string.`;
    if (value === '' && !mayBeEmpty.has(field)) return `(${record.op}) has an empty field "${field}".`;
    const max = mayBeEmpty.has(field) ? maxPageOpText : maxIdLength;
    if (value.length > max) return `(${record.op}) has a field "${field}" longer than ${max.toLocaleString('en-US')} characters.`;
  }
  return null;
}

/** VAR1: 2 to 4 strings of HTML, each as long as a `replace_element`'s may be. */
function candidatesProblem(value: unknown): string | null {
  if (!Array.isArray(value)) return value === undefined ? 'lacks "candidates".' : 'has a field "candidates" that is not a list.';
  if (value.length < minVariants || value.length > maxVariants) return `has ${value.length} candidates; propose ${minVariants} to ${maxVariants}.`;
  const bad = value.findIndex((candidate) => typeof candidate !== 'string' || candidate.length > maxPageOpText);
  if (bad >= 0) return `has a candidate ${bad} that is not a string of at most ${maxPageOpText.toLocaleString('en-US')} characters.`;
  return null;
}

function invalid(index: number, message: string): { ok: false; error: InvalidPageOp } {
  return { ok: false, error: { code: 'INVALID_OP', index, message } };
}
