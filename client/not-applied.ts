import * as Y from 'yjs';
import type { Awareness } from 'y-protocols/awareness';
import { docParts } from '../shared/model/doc-layout.ts';
import { pendingDeleteOf, writersSince } from '../shared/applier/pending-delete-attr.ts';

/**
 * The blocks runs deleted that people changed since (PROTOCOL.md REV6), as the review panel
 * shows them while the run is in review: `"<runId> <blockId>"` → the names of those who wrote
 * in the block since, as awareness knows them (people not here are left out). The server
 * decides at Accept, by the block's content; a change undone again may show here and still
 * be applied.
 */
export function readNotApplied(ydoc: Y.Doc, awareness: Awareness | null): ReadonlyMap<string, string[]> {
  const found = new Map<string, string[]>();
  for (const yblock of blocksAtAnyDepth(docParts(ydoc).content)) {
    const pending = pendingDeleteOf(yblock);
    if (!pending) continue;
    const clients = writersSince(yblock as Y.XmlElement, pending);
    if (clients.length === 0) continue;
    const states = awareness?.getStates();
    const names = clients.flatMap((client) => {
      const name = (states?.get(client)?.user as { name?: unknown } | undefined)?.name;
      return typeof name === 'string' ? [name] : [];
    });
    found.set(`${pending.runId} ${pending.blockId}`, [...new Set(names)]);
  }
  return found;
}

/** Every element of the text, at any depth (OP12: nested blocks are deleted pending review too). */
function blocksAtAnyDepth(root: Y.XmlFragment | Y.XmlElement): Y.XmlElement[] {
  const out: Y.XmlElement[] = [];
  for (const child of root.toArray()) {
    if (!(child instanceof Y.XmlElement)) continue;
    out.push(child);
    out.push(...blocksAtAnyDepth(child));
  }
  return out;
}
