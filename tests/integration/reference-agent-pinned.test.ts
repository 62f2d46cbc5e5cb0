import { describe, expect, it } from 'vitest';
import { anchorFromRange } from '../../shared/model/anchors.ts';
import { docName } from '../../shared/model/doc-layout.ts';
import { createAnnotation } from '../../shared/notes/annotations-writers.ts';
import type * as Y from 'yjs';
import { startTestReferenceAgent } from '../helpers/agents.ts';
import { connectPeer, waitFor } from '../helpers/peer.ts';
import { createDoc, markdownOf, waitForState } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/*
 * REF1 end to end: the reference agent changes the text an instruction is pinned to, not the
 * rest of its block, and the comments pinned to that rest stay on their text.
 */

const server = useTestServer();
const ann = { id: 'ann', name: 'Ann' };

/** Pins `kind` to the first `quote` in the first block of `text` (a paragraph: its text starts at position 1). */
function pin(notes: Y.Doc, text: Y.Doc, paragraph: string, quote: string, kind: 'comment' | 'instruction', note: string): string {
  const at = 1 + paragraph.indexOf(quote);
  const pinned = anchorFromRange(text, at, at + quote.length);
  expect(pinned.quote).toBe(quote);
  const made = createAnnotation(notes, { kind, ...pinned, author: ann, text: note, now: Date.now() });
  if (!made.ok) throw new Error(made.error.message);
  return made.id;
}

describe('the reference agent on pinned text', () => {
  it('[REF1] uppercases only the five words pinned; the other sentence, its link and its comment stay', async () => {
    const paragraph = 'Mine are these five words right here. Theirs is another sentence with a link.';
    const doc = await createDoc(server, 'Mine are these **five words right here**. Theirs is another sentence with [a link](https://example.com/x).');
    const token = server.token('editor', { sub: ann.id, name: ann.name });
    const text = server.track(connectPeer({ wsUrl: server.wsUrl, name: docName(doc.id), token }));
    const notes = server.track(connectPeer({ wsUrl: server.wsUrl, name: docName(doc.id, 'notes'), token }));
    await Promise.all([text.synced, notes.synced]);
    const comment = pin(notes.ydoc, text.ydoc, paragraph, 'another sentence', 'comment', 'Is this right?');
    const within = pin(notes.ydoc, text.ydoc, paragraph, 'words right', 'comment', 'Inside the change');
    pin(notes.ydoc, text.ydoc, paragraph, 'five words right here', 'instruction', 'uppercase');
    const annotations = async () => (await server.api(`/api/docs/${doc.id}`)).body.annotations as { id: string; status: string }[];
    await waitFor(async () => (await annotations()).length === 3);

    const sent = await server.api(`/api/docs/${doc.id}/runs`, { method: 'POST' });
    expect(sent.status).toBe(201);
    const agent = startTestReferenceAgent(server);
    try {
      await waitForState(server, sent.body.runId, 'review', 10_000);
    } finally {
      await agent.stop();
    }
    expect(await markdownOf(server, doc.id)).toBe(
      'Mine are these **FIVE WORDS RIGHT HERE**. Theirs is another sentence with [a link](https://example.com/x).',
    );
    const status = new Map((await annotations()).map((annotation) => [annotation.id, annotation.status]));
    // The comment on the untouched sentence keeps its characters: the run's write is a minimal diff.
    expect(status.get(comment)).toBe('attached');
    // A comment on words the run rewrote loses them, as for any rewrite.
    expect(status.get(within)).toBe('orphaned');
  });
});
