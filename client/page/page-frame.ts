import { createPageTools, elementIdAttribute, type PageTools } from '../../shared/page/page-tools.ts';
import { parsePage, serializePage } from '../../shared/page/page-model.ts';

/**
 * What the app puts in a page's frame (PAGE9): the page sanitized again here, in the browser,
 * inside a document whose Content-Security-Policy allows no script, no frame, no form target and
 * no network but images and fonts; plus the app's own marks (outlines of the hovered element
 * while picking, and of the elements a run changed, numbered by instruction).
 */

let tools: PageTools | null = null;

export function browserPageTools(): PageTools {
  tools ??= createPageTools(window);
  return tools;
}

export const frameCsp =
  "default-src 'none'; style-src 'unsafe-inline'; img-src http: https: data:; font-src http: https: data:; form-action 'none'; base-uri 'none'";

/** Marks the frame's style knows: `data-tandem-hover` and `data-tandem-changed="N"`. */
const frameStyle = `
[data-tandem-hover] { outline: 2px solid #2563eb !important; outline-offset: 2px; cursor: crosshair; }
[data-tandem-changed] { outline: 2px dashed #b45309 !important; outline-offset: 2px; }
[data-tandem-changed]::before { content: attr(data-tandem-changed); display: inline-block; margin-right: 0.3em;
  padding: 0 0.35em; border-radius: 0.6em; background: #b45309; color: #fff; font: bold 12px/1.4 sans-serif; }`;

/**
 * The frame's `srcdoc` for `source`; `changed` maps element ids to the number shown beside
 * them (the instruction's position in the run).
 */
export function pageSrcdoc(source: string, changed: ReadonlyMap<string, number> = new Map()): string {
  const tools = browserPageTools();
  const page = parsePage(tools, source);
  for (const [id, number] of changed) page.byId.get(id)?.setAttribute('data-tandem-changed', String(number));
  const meta = `<meta http-equiv="Content-Security-Policy" content="${frameCsp}">`;
  return `<!doctype html><html><head><meta charset="utf-8">${meta}<style>${frameStyle}</style></head><body>${serializePage(tools, page)}</body></html>`;
}

/** The element id of `target` or of its nearest ancestor that has one, or null. */
export function pickedElementId(target: EventTarget | null): string | null {
  const element = target && 'closest' in (target as object) ? (target as Element).closest(`[${elementIdAttribute}]`) : null;
  return element?.getAttribute(elementIdAttribute) ?? null;
}
