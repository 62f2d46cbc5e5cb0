import { describe, expect, it } from 'vitest';
import { resolveAnchor, type Anchor } from '../../shared/model/anchors.ts';
import { connectPeer, waitFor } from '../helpers/peer.ts';
import { getRun, markdownOf, sentRun, titleUppercasedAndSecondDeleted } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/*
 * Discard run with a reason (shared/PROTOCOL.md REV5): the reason becomes a draft instruction
 * on the text Discard restores, recording the change that was discarded.
 */

const server = useTestServer();
const markdown = '# Title\n\nalpha one\n\nbeta two';

interface NoteView {
  id: string;
  kind: string;
  state: string;
  runId: string | null;
  blockId: string;
  quote: string;
  anchor: Anchor;
  author: { id: string; name: string };
  turns: { text: string }[];
  status: string;
  discardedChange?: string;
}

const notesOf = async (docId: string): Promise<NoteView[]> => (await server.api(`/api/docs/${docId}`)).body.annotations;

/** A run in review: the title uppercased (instruction 0), `alpha one` deleted (1), `beta two` refused (2). */
async function runInReview() {
  const doc = await sentRun(server, markdown, ['uppercase', 'delete', 'make it sing']);
  const bot = await titleUppercasedAndSecondDeleted(server, doc);
  expect((await bot.complete(doc.runId, { refusals: [{ instructionId: doc.instructionIds[2], reason: 'No.' }] })).status).toBe(200);
  expect(await markdownOf(server, doc.docId)).toBe('# TITLE\n\nbeta two');
  return doc;
}

const discard = (runId: string, body?: unknown, token = server.token('editor', { name: 'Ada' })) =>
  server.api(`/api/runs/${runId}/discard`, { method: 'POST', body, token });

describe('POST /api/runs/:runId/discard {reason}', () => {
  it('[REV5] makes a draft instruction with the reason on the restored text of each changed instruction, recording the discarded change', async () => {
    const doc = await runInReview();
    const answer = await discard(doc.runId, { reason: '  Keep the wording; only fix typos.  ' });
    expect(answer.status).toBe(200);
    expect(answer.body.state).toBe('discarded');
    expect(answer.body.draftIds).toHaveLength(2);
    expect(await markdownOf(server, doc.docId)).toBe(markdown);

    const notes = await notesOf(doc.docId);
    const drafts: NoteView[] = answer.body.draftIds.map((id: string) => notes.find((note) => note.id === id)!);
    expect(drafts.map((note) => [note.kind, note.state, note.runId, note.turns.map((turn) => turn.text), note.author.name])).toEqual([
      ['instruction', 'draft', null, ['Keep the wording; only fix typos.'], 'Ada'],
      ['instruction', 'draft', null, ['Keep the wording; only fix typos.'], 'Ada'],
    ]);
    // Pinned to the blocks the run had changed, quoting the text Discard brought back.
    expect(drafts.map((note) => [note.blockId, note.quote, note.status])).toEqual([
      [doc.blocks[0].id, 'Title', 'attached'],
      [doc.blocks[1].id, 'alpha one', 'attached'],
    ]);
    // What the agent had proposed there: the new Markdown, and nothing for a deletion.
    expect(drafts.map((note) => note.discardedChange)).toEqual(['# TITLE', '']);
    // The refused instruction had no change: no draft for it. The old instructions are answered.
    expect(notes.filter((note) => !answer.body.draftIds.includes(note.id)).map((note) => [note.state, 'discardedChange' in note])).toEqual([
      ['answered', false],
      ['answered', false],
      ['answered', false],
    ]);

    // Every peer reads the anchors on the restored text.
    const peer = server.track(connectPeer({ wsUrl: server.wsUrl, name: doc.docId, token: server.ownerToken }));
    await peer.synced;
    await waitFor(() => resolveAnchor(peer.ydoc, drafts[1].anchor).status === 'attached');
    expect(drafts.map((note) => resolveAnchor(peer.ydoc, note.anchor))).toMatchObject([
      { status: 'attached', text: 'Title' },
      { status: 'attached', text: 'alpha one' },
    ]);
  });

  it('[REV5] makes no instruction without a reason', async () => {
    const doc = await runInReview();
    const before = (await notesOf(doc.docId)).length;
    const answer = await discard(doc.runId, {});
    expect(answer).toMatchObject({ status: 200, body: { state: 'discarded' } });
    expect(answer.body.draftIds).toBeUndefined();
    expect(await notesOf(doc.docId)).toHaveLength(before);
    expect(await markdownOf(server, doc.docId)).toBe(markdown);
    // The run record names who discarded it (the people's announcements read it, RUN4).
    expect((await getRun(server, doc.runId)).decidedBy).toEqual({ id: expect.any(String), name: 'Ada' });
  });

  it.each([
    ['a number', { reason: 42 }, 'INVALID_REASON'],
    ['blank', { reason: ' \n\t ' }, 'INVALID_REASON'],
    ['too long', { reason: 'x'.repeat(2001) }, 'INVALID_REASON'],
    ['null', { reason: null }, 'INVALID_REASON'],
    ['not an object', ['why'], 'INVALID_BODY'],
  ])('[REV5] refuses a reason that is %s with 422, and the run stays in review', async (_label, body, code) => {
    const doc = await runInReview();
    const before = await notesOf(doc.docId);
    const answer = await discard(doc.runId, body);
    expect(answer.status).toBe(422);
    expect(answer.body.error.code).toBe(code);
    expect(answer.body.error.message).toEqual(expect.any(String));
    expect((await getRun(server, doc.runId)).state).toBe('review');
    expect(await markdownOf(server, doc.docId)).toBe('# TITLE\n\nbeta two');
    expect(await notesOf(doc.docId)).toEqual(before);
    // The run can still be discarded, with a reason of exactly the longest length.
    const answered = await discard(doc.runId, { reason: 'y'.repeat(2000) });
    expect(answered.status).toBe(200);
    expect(answered.body.draftIds).toHaveLength(2);
  });

  it('[REV5] answers 403 to a viewer before reading the reason', async () => {
    const doc = await runInReview();
    const answer = await discard(doc.runId, { reason: 42 }, server.token('viewer'));
    expect(answer.status).toBe(403);
    expect((await getRun(server, doc.runId)).state).toBe('review');
  });
});
