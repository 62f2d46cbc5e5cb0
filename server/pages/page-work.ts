import type { PageChange, PageApplierRun } from '../../shared/page/page-applier.ts';
import type { PageElement } from '../../shared/page/page-model.ts';
import { sourceShapeProblem } from '../../shared/page/page-limits.ts';
import { Rejection } from '../../shared/protocol/rejection.ts';
import { DerivedCache, sha256 } from '../work/derived-cache.ts';
import { workPool } from '../work/work-pool.ts';
import { rawJsonAs } from '../raw-json.ts';

/**
 * A page's reads and writes as the server does them (LIMIT8–LIMIT10): in the work pool's
 * threads, never on the event loop, and what is read is kept per version of the source, so
 * people reading an unchanged page, the pins, Send's drift, the preview and Accept parse it
 * once. Each resolves, or rejects with the Rejection of the limit the page breaks.
 */

const views = new DerivedCache(64);

export interface PageView {
  html: string;
  elements: PageElement[];
  /** `elements` as JSON text, for the answers. */
  elementsJson: string;
}

/** PAGE3: the page's source, sanitized, and its elements. */
export function pageViewOf(source: string): Promise<PageView> {
  return views.get(`view:${sha256(source)}`, () => workPool().run('pageView', source));
}

/** PAGE3: the page as an answer shows it, its elements as the JSON text the work thread wrote. */
export async function pageAnswerOf(source: string): Promise<{ html: string; elements: PageElement[] }> {
  const { html, elementsJson } = await pageViewOf(source);
  return { html, elements: rawJsonAs<PageElement[]>(elementsJson) };
}

/** The element `elementId` of the page as it reads now, or null. */
export async function pageElement(source: string, elementId: string): Promise<PageElement | null> {
  return (await pageViewOf(source)).elements.find((element) => element.id === elementId) ?? null;
}

/** PAGE7: the candidate of a run over `source`. */
export function pageCandidateOf(source: string, changes: PageChange[]): Promise<string> {
  return views.get(`candidate:${sha256(source)}:${sha256(JSON.stringify(changes))}`, () => workPool().run('pageCandidate', { source, changes }));
}

/** PAGE1: the source a new page's HTML becomes; refused before any parsing when its markup breaks LIMIT8 or LIMIT9. */
export function normalizedPage(html: string): Promise<string> {
  refuseShape(html);
  return workPool().run('normalizePage', html);
}

/** PAGE5–PAGE7: a batch of page ops over `source` and the run's earlier changes. */
export function applyPageOpsOff(source: string, earlier: PageChange[], ops: unknown, run: Omit<PageApplierRun, 'makeId'>) {
  return workPool().run('applyPageOps', {
    source,
    earlier,
    ops,
    fence: [...run.fence],
    instructions: [...run.instructions],
    allowedOps: [...run.allowedOps],
    answered: [...(run.answered ?? [])],
  });
}

/** PAGE13: `source` with the run's changes taken back. */
export function revertedPage(source: string, changes: PageChange[]) {
  return workPool().run('revertPage', { source, changes });
}

/** Throws the Rejection of LIMIT8 or LIMIT9 when `html` as written breaks it. */
export function refuseShape(html: string): void {
  const problem = sourceShapeProblem(html);
  if (problem) throw new Rejection(422, problem.code, problem.message);
}
