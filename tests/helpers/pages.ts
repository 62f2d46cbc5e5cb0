import { expect } from 'vitest';
import type { ElementView } from '../../shared/wire/docs.ts';
import type { ApiServer } from './runs.ts';

/** Creates a page from HTML; its id, source and elements as the API shows them. */
export async function createPage(server: ApiServer, html: string, title = 'Landing'): Promise<{ id: string; html: string; elements: ElementView[] }> {
  const created = await server.api('/api/docs', { method: 'POST', body: { title, kind: 'page', html } });
  expect(created).toMatchObject({ status: 201, body: { title, kind: 'page' } });
  return { id: created.body.id, ...(await pageOf(server, created.body.id)) };
}

export async function pageOf(server: ApiServer, docId: string): Promise<{ html: string; elements: ElementView[] }> {
  const { body } = await server.api(`/api/docs/${docId}`);
  return { html: body.html, elements: body.elements };
}

/** The first element with `tag`. */
export function byTag(elements: readonly ElementView[], tag: string): ElementView {
  const found = elements.find((element) => element.tag === tag);
  if (!found) throw new Error(`The page has no <${tag}>`);
  return found;
}

/** Pins a queued instruction on an element; its id. */
export async function instructElement(server: ApiServer, docId: string, elementId: string, text: string): Promise<string> {
  const response = await server.api(`/api/docs/${docId}/annotations`, { method: 'POST', body: { kind: 'instruction', elementId, text } });
  expect(response.status).toBe(201);
  return response.body.id;
}

/** A page with one instruction per `[tag, text]`, sent as one run. */
export async function sentPageRun(server: ApiServer, html: string, instructions: [string, string][]) {
  const page = await createPage(server, html);
  const instructionIds: string[] = [];
  for (const [tag, text] of instructions) instructionIds.push(await instructElement(server, page.id, byTag(page.elements, tag).id, text));
  const sent = await server.api(`/api/docs/${page.id}/runs`, { method: 'POST' });
  expect(sent.status).toBe(201);
  return { docId: page.id, runId: sent.body.runId as string, html: page.html, elements: page.elements, instructionIds };
}

export const landingHtml =
  '<h1>Welcome to the best landing page ever written</h1><p>Read <a href="http://old.example/docs">the docs</a> today.</p>';
