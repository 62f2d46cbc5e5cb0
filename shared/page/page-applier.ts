import { elementIdAttribute, type PageTools } from './page-tools.ts';
import { elementHash, giveIds, parsePage, serializePage, type ParsedPage } from './page-model.ts';
import { isPageOpKind, parsePageOps, settableAttributes, type PageOp, type PageOpKind } from './page-ops.ts';
import type { RunChange } from '../protocol/run-record.ts';

/**
 * The page applier (PAGE5–PAGE8): turns a batch of an agent's page ops into changes of the
 * run's staged candidate, all or nothing. Pure: no I/O, no clock; new element ids come from
 * `run.makeId`. It never touches the page's source: a page run is a candidate (the source with
 * the run's changes replayed over it, `candidateOf`) until Accept writes it.
 *
 * Checks, op by op in batch order; the first failing check of the first failing op is the
 * answer (`index` is its position, `elementId` the element it names):
 *   1. OP_NOT_ALLOWED  the op's kind is outside the agent's allowlist;
 *   2. INVALID_OP      the op answers no instruction of the run;
 *   3. OUTSIDE_FENCE   the element is no target of the run's instructions;
 *   4. STALE_ELEMENT   the element is not in the source, or its hash in the source is no longer
 *                      `expectHash`, or the run's earlier changes removed it from the candidate;
 *   5. INVALID_OP      set_attribute of an attribute other than class, href, alt, title, or an
 *                      href that is not an absolute http(s) URL; replace_element whose HTML (or
 *                      a propose_variants one of whose candidates), sanitized, is not exactly
 *                      one element; a propose_variants for an instruction another op answers
 *                      (in the batch or earlier), or an op for one answered with variants (VAR1).
 * A propose_variants stages its first candidate as a replace_element would; its change is that
 * replace_element, keeping every candidate as sanitized (`candidates`).
 * `expectHash` is checked against the source (what `GET /api/docs/:id` shows during the run):
 * staleness means people changed the element since the agent read it. The op applies to the
 * candidate as the run's earlier changes and the batch's earlier ops left it.
 */

export interface PageApplierRun {
  fence: ReadonlySet<string>;
  instructions: ReadonlySet<string>;
  allowedOps: ReadonlySet<string>;
  makeId: () => string;
  /** VAR1: the instructions the run's earlier changes answer, each with whether by variants. */
  answered?: ReadonlyMap<string, boolean>;
}

export type PageApplyErrorCode = 'INVALID_OP' | 'OP_NOT_ALLOWED' | 'OUTSIDE_FENCE' | 'STALE_ELEMENT';

export interface PageApplyError {
  code: PageApplyErrorCode;
  index: number;
  elementId?: string;
  message: string;
}

/** One applied op: the element's serialized HTML in the candidate before and after it. */
export interface PageChange {
  op: PageOpKind;
  elementId: string;
  instructionId: string;
  before: string;
  after: string;
  /** VAR1: every candidate of a propose_variants as staged (`after` is the one shown); absent otherwise. */
  candidates?: string[];
}

export type PageApplyResult = { ok: true; applied: number; changes: PageChange[] } | { ok: false; error: PageApplyError };

export function applyPageOps(
  tools: PageTools,
  source: string,
  earlier: readonly PageChange[],
  ops: unknown,
  run: PageApplierRun,
): PageApplyResult {
  const parsed = parsePageOps(ops);
  if (!parsed.ok) return parsed;
  const original = parsePage(tools, source);
  const candidate = replay(tools, parsePage(tools, source), earlier);
  const changes: PageChange[] = [];
  const answered = new Map(run.answered ?? []);
  for (const [index, op] of parsed.ops.entries()) {
    const target = candidate.byId.get(op.elementId);
    const refusal = check(op, run, original, target) ?? variantsRefusal(op, answered);
    if (refusal !== null || target === undefined) {
      const error = refusal ?? removedByEarlierChanges(op.elementId);
      return { ok: false, error: { ...error, index, message: `The op at index ${index} ${error.message}` } };
    }
    const change = applyOne(tools, op, target, candidate, run.makeId);
    if (typeof change === 'string') {
      return { ok: false, error: { code: 'INVALID_OP', index, elementId: op.elementId, message: `The op at index ${index} ${change}` } };
    }
    changes.push(change);
  }
  return { ok: true, applied: changes.length, changes };
}

/** The page changes among a run's changes (PAGE7), in the order they were applied. */
export function pageChangesOf(run: { changes: readonly RunChange[] }): PageChange[] {
  return run.changes.flatMap((change) =>
    isPageOpKind(change.op) && change.before !== null && change.after !== null
      ? [{ op: change.op, elementId: change.blockId, instructionId: change.instructionId, before: change.before, after: change.after }]
      : [],
  );
}

/** PAGE7: the candidate of a run: the current source with the run's changes replayed, in order. */
export function candidateOf(tools: PageTools, source: string, changes: readonly PageChange[]): string {
  return serializePage(tools, replay(tools, parsePage(tools, source), changes));
}

/**
 * Replays changes over a parsed page: each change's element, found by id, becomes its `after`.
 * A change whose element is no longer there is skipped (people removed it meanwhile).
 */
function replay(tools: PageTools, page: ParsedPage, changes: readonly PageChange[]): ParsedPage {
  for (const change of changes) {
    const target = page.byId.get(change.elementId);
    const replacement = target ? parseOneElement(tools, change.after) : null;
    if (target && replacement) swap(page, target, replacement);
  }
  return page;
}

/** VAR1: variants are the one answer of their instruction. */
function variantsRefusal(op: PageOp, answered: Map<string, boolean>): Omit<PageApplyError, 'index'> | null {
  const earlier = answered.get(op.instructionId);
  answered.set(op.instructionId, (earlier ?? false) || op.op === 'propose_variants');
  if (op.op === 'propose_variants' ? earlier === undefined : earlier !== true) return null;
  const other = op.op === 'propose_variants' ? 'another op' : 'a propose_variants';
  return { code: 'INVALID_OP', elementId: op.elementId, message: `answers "${op.instructionId}", which ${other} answers already; variants are the one answer of their instruction.` };
}

/** Why `op` cannot apply to the page as read (`original`) and to its `target` in the candidate, or null. */
function check(op: PageOp, run: PageApplierRun, original: ParsedPage, target: Element | undefined): Omit<PageApplyError, 'index'> | null {
  const elementId = op.elementId;
  if (!run.allowedOps.has(op.op)) return { code: 'OP_NOT_ALLOWED', elementId, message: `is a ${op.op}, which this agent may not send.` };
  if (!run.instructions.has(op.instructionId)) return { code: 'INVALID_OP', elementId, message: 'answers no instruction of this run.' };
  if (!run.fence.has(elementId)) return { code: 'OUTSIDE_FENCE', elementId, message: "names an element that none of the run's instructions target." };
  const read = original.byId.get(elementId);
  if (!read) return { code: 'STALE_ELEMENT', elementId, message: 'names an element that is no longer in the page.' };
  if (elementHash(read) !== op.expectHash) {
    return { code: 'STALE_ELEMENT', elementId, message: 'names an element that changed since it was read (its hash differs): read the page again.' };
  }
  return target === undefined ? removedByEarlierChanges(elementId) : null;
}

function removedByEarlierChanges(elementId: string): Omit<PageApplyError, 'index'> {
  return { code: 'STALE_ELEMENT', elementId, message: "names an element that the run's earlier changes removed." };
}

function applyOne(tools: PageTools, op: PageOp, target: Element, candidate: ParsedPage, makeId: () => string): PageChange | string {
  const before = target.outerHTML;
  let replacement: Element;
  switch (op.op) {
    case 'set_text':
      replacement = target.cloneNode(false) as Element;
      replacement.textContent = op.text;
      break;
    case 'set_attribute': {
      const problem = attributeProblem(op.name, op.value);
      if (problem !== null) return problem;
      replacement = target.cloneNode(true) as Element;
      replacement.setAttribute(op.name, op.value);
      break;
    }
    case 'replace_element': {
      const parsed = replacementOf(tools, op.html, op.elementId, target, candidate, makeId);
      if (parsed === null) return 'has html that, sanitized, is not exactly one element.';
      replacement = parsed;
      break;
    }
    case 'propose_variants': {
      const afters: string[] = [];
      for (const [index, html] of op.candidates.entries()) {
        const parsed = replacementOf(tools, html, op.elementId, target, candidate, makeId);
        const after = parsed && parseOneElement(tools, parsed.outerHTML);
        if (!after || after.getAttribute(elementIdAttribute) !== op.elementId) return `has a candidate ${index} whose html, sanitized, is not exactly one element.`;
        afters.push(after.outerHTML);
      }
      const shown = parseOneElement(tools, afters[0]) as Element;
      swap(candidate, target, shown);
      return { op: 'replace_element', elementId: op.elementId, instructionId: op.instructionId, before, after: afters[0], candidates: afters };
    }
  }
  // What is stored is what a replay parses back: sanitize the element as it is now.
  const after = parseOneElement(tools, replacement.outerHTML);
  if (after === null || after.getAttribute(elementIdAttribute) !== op.elementId) return 'would give an element that does not survive sanitizing.';
  swap(candidate, target, after);
  return { op: op.op, elementId: op.elementId, instructionId: op.instructionId, before, after: after.outerHTML };
}

/**
 * `html` sanitized as the replacement of `target`, or null when it is not exactly one element:
 * the root takes `elementId`, descendants keep only ids they had inside the replaced element,
 * the others get fresh ones.
 */
function replacementOf(tools: PageTools, html: string, elementId: string, target: Element, candidate: ParsedPage, makeId: () => string): Element | null {
  const replacement = parseOneElement(tools, html);
  if (replacement === null) return null;
  const inside = new Set([target, ...Array.from(target.querySelectorAll('*'))].map((el) => el.getAttribute(elementIdAttribute)));
  const taken = new Set([...candidate.byId.keys()].filter((id) => !inside.has(id)));
  replacement.setAttribute(elementIdAttribute, elementId);
  giveIds(replacement, taken, makeId, (id) => id === elementId || inside.has(id));
  return replacement;
}

/** PAGE6: why `name="value"` may not be set, or null. */
function attributeProblem(name: string, value: string): string | null {
  if (!(settableAttributes as readonly string[]).includes(name)) {
    return `sets "${name.slice(0, 40)}"; set_attribute may set only ${settableAttributes.join(', ')}.`;
  }
  if (value.length > 2000) return 'has a value longer than 2,000 characters.';
  if (name !== 'href') return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'has an href that is not an absolute URL.';
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? null : 'has an href that is not http: or https:.';
}

/** `html` sanitized, when it is exactly one element (white space around it allowed), else null. */
function parseOneElement(tools: PageTools, html: string): Element | null {
  const nodes = Array.from(tools.sanitize(html).childNodes).filter((node) => !(node.nodeType === 3 && (node.textContent ?? '').trim() === ''));
  return nodes.length === 1 && nodes[0].nodeType === 1 ? (nodes[0] as Element) : null;
}

/** Puts `replacement` in `target`'s place and re-indexes the ids below it. */
function swap(page: ParsedPage, target: Element, replacement: Element): void {
  for (const element of [target, ...Array.from(target.querySelectorAll('*'))]) {
    const id = element.getAttribute(elementIdAttribute);
    if (id !== null && page.byId.get(id) === element) page.byId.delete(id);
  }
  target.replaceWith(replacement);
  for (const element of [replacement, ...Array.from(replacement.querySelectorAll('*'))]) {
    const id = element.getAttribute(elementIdAttribute);
    if (id !== null && !page.byId.has(id)) page.byId.set(id, element);
  }
}

/**
 * PAGE13 Revert: the source with a run's changes taken back, latest first: an element that still
 * reads as the change left it (`after`) becomes `before` again; one that people rewrote or
 * removed since is left as it is and listed. Only elements the run changed are touched.
 */
export function revertPageChanges(
  tools: PageTools,
  source: string,
  changes: readonly PageChange[],
): { html: string; notReverted: { blockId: string; instructionId: string; reason: 'rewritten' | 'removed' }[] } {
  const page = parsePage(tools, source);
  const notReverted: { blockId: string; instructionId: string; reason: 'rewritten' | 'removed' }[] = [];
  for (const change of [...changes].reverse()) {
    const target = page.byId.get(change.elementId);
    const before = target ? parseOneElement(tools, change.before) : null;
    if (!target) notReverted.push({ blockId: change.elementId, instructionId: change.instructionId, reason: 'removed' });
    else if (target.outerHTML !== change.after || !before) notReverted.push({ blockId: change.elementId, instructionId: change.instructionId, reason: 'rewritten' });
    else swap(page, target, before);
  }
  return { html: serializePage(tools, page), notReverted: notReverted.reverse() };
}
