import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { appendParagraph, appendToBlock } from '../helpers/doc-builder.ts';
import { roundTrip, waitFor } from '../helpers/peer.ts';
import { agentRewroteFirstBlock, blocksOf, markdownOf } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';
import { readBlocks } from '../../shared/model/doc-content.ts';

/*
 * Version history (shared/PROTOCOL.md HIST1–HIST5): versions named by people, kept at every run
 * decision and while people write, read as Markdown, compared with their writers, restored as
 * one change every peer receives; on SQLite here and on PostgreSQL in the integration-postgres
 * project (vitest.config.ts).
 */

// Automatic versions once a day at most: the lists below hold only what each test made.
const server = useTestServer({ versionEveryMs: 86_400_000 }, 'test');
const post = (path: string, body?: unknown, token?: string) => server.api(path, { method: 'POST', body, token });

type Listed = { versionId: string; name: string; reason: string; createdAt: string; by: { name: string } };
async function versions(docId: string, token?: string): Promise<Listed[]> {
  const answer = await server.api(`/api/docs/${docId}/versions`, { token });
  expect(answer.status).toBe(200);
  return answer.body;
}
async function nameVersion(docId: string, name: string): Promise<string> {
  const answer = await post(`/api/docs/${docId}/versions`, { name });
  expect(answer.status).toBe(201);
  return answer.body.versionId;
}
async function versionMarkdown(docId: string, versionId: string): Promise<string> {
  const answer = await server.api(`/api/docs/${docId}/versions/${versionId}/markdown`);
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toContain('text/markdown');
  return answer.body;
}
/** The text of a document's first block. */
function firstText(ydoc: Y.Doc): Y.XmlText {
  const block = ydoc.getXmlFragment('content').get(0);
  if (!(block instanceof Y.XmlElement)) throw new Error('No first block');
  return block.get(0) as Y.XmlText;
}
const textOf = (peer: { ydoc: Y.Doc }) => readBlocks(peer.ydoc).map((block) => block.markdown).join('\n\n');

/** Ana, a person on her own WebSocket, appending to block 0 and adding a paragraph. */
async function anaWrites(docId: string, append: string, paragraph?: string) {
  const ana = server.connect(docId, server.token('editor', { sub: 'ana', name: 'Ana' }));
  await ana.synced;
  appendToBlock(ana.ydoc, 0, append);
  if (paragraph) appendParagraph(ana.ydoc, paragraph);
  await roundTrip(ana);
  return ana;
}

describe('naming and reading versions', () => {
  it('[HIST1] names a version, lists it newest first and reads it as it was after the text moved on', async () => {
    const docId = await server.createDoc('Named', 'first draft');
    expect(await versions(docId)).toEqual([]);
    const draft = await nameVersion(docId, '  Draft one  ');
    await anaWrites(docId, ' grew');
    const second = await nameVersion(docId, 'Draft two');

    const listed = await versions(docId, server.token('viewer'));
    expect(listed.map((version) => [version.versionId, version.name, version.reason, version.by.name])).toEqual([
      [second, 'Draft two', 'named', 'Owner'],
      [draft, 'Draft one', 'named', 'Owner'],
    ]);
    expect(Number.isNaN(Date.parse(listed[0].createdAt))).toBe(false);
    expect(await versionMarkdown(docId, draft)).toBe('first draft');
    expect(await versionMarkdown(docId, second)).toBe('first draft grew');
    expect(await markdownOf(server, docId)).toBe('first draft grew');
  });

  it('[HIST1] refuses a version without a name, naming by a viewer, and versions of other documents', async () => {
    const docId = await server.createDoc('Refusals', 'text');
    const other = await server.createDoc('Other', 'other');
    const otherVersion = await nameVersion(other, 'Elsewhere');
    expect((await post(`/api/docs/${docId}/versions`, { name: '   ' })).status).toBe(422);
    expect((await post(`/api/docs/${docId}/versions`, {})).status).toBe(422);
    expect((await post(`/api/docs/${docId}/versions`, { name: 'Mine' }, server.token('viewer'))).status).toBe(403);
    expect((await post(`/api/docs/${docId}/versions`, { name: 'Mine' }, server.token('commenter'))).status).toBe(403);
    expect((await server.api(`/api/docs/${docId}/versions/${otherVersion}/markdown`)).status).toBe(404);
    expect((await server.api(`/api/docs/${docId}/versions/no-such/markdown`)).status).toBe(404);
    expect((await post(`/api/docs/${docId}/versions/${otherVersion}/restore`)).status).toBe(404);
    expect((await server.api(`/api/docs/${docId}/versions`, { token: server.token('viewer', { doc: other }) })).status).toBe(403);
    expect(await versions(docId)).toEqual([]);
    expect(await markdownOf(server, docId)).toBe('text');
  });

  it('[HIST1] keeps versions across a restart', async () => {
    const docId = await server.createDoc('Kept', 'kept text');
    const kept = await nameVersion(docId, 'Before restart');
    await anaWrites(docId, ' and more');
    await server.restart();
    expect((await versions(docId)).map((version) => version.versionId)).toEqual([kept]);
    expect(await versionMarkdown(docId, kept)).toBe('kept text');
  });
});

describe('versions at run decisions', () => {
  it('[HIST1] keeps the text each accept, discard and revert left, by who decided', async () => {
    const docId = await server.createDoc('Decided', 'hello');
    const accepted = await agentRewroteFirstBlock(server, docId, 'hello world');
    expect((await post(`/api/runs/${accepted.runId}/accept`)).status).toBe(200);
    expect((await post(`/api/runs/${accepted.runId}/revert`)).status).toBe(200);
    const discarded = await agentRewroteFirstBlock(server, docId, 'goodbye');
    expect((await post(`/api/runs/${discarded.runId}/discard`)).status).toBe(200);

    const listed = await versions(docId);
    expect(listed.map((version) => [version.reason, version.by.name])).toEqual([
      ['run-discarded', 'Owner'],
      ['run-reverted', 'Owner'],
      ['run-accepted', 'Owner'],
    ]);
    expect(await versionMarkdown(docId, listed[2].versionId)).toBe('hello world');
    expect(await versionMarkdown(docId, listed[1].versionId)).toBe('hello');
    expect(await versionMarkdown(docId, listed[0].versionId)).toBe('hello');
  });
});

describe('comparing versions', () => {
  it('[HIST5] says what changed between any two versions and against the current text, each change by its writer', async () => {
    const docId = await server.createDoc('Compared', 'one two three\n\nsecond');
    const first = await nameVersion(docId, 'First');
    const ana = await anaWrites(docId, ' four', 'a new paragraph');
    const second = await nameVersion(docId, 'Second');
    // Ana deletes "two " from the owner's text.
    ana.ydoc.transact(() => {
      const text = firstText(ana.ydoc);
      text.delete(4, 4);
    });
    await roundTrip(ana);
    const [block, secondBlock] = await blocksOf(server, docId);

    const between = await server.api(`/api/docs/${docId}/compare?from=${first}&to=${second}`);
    expect(between.status).toBe(200);
    const added = (await blocksOf(server, docId))[2];
    expect(between.body.changes).toEqual([
      { kind: 'insert', blockId: block.id, text: ' four', by: { kind: 'person', name: 'Ana' } },
      { kind: 'insert', blockId: added.id, text: 'a new paragraph', by: { kind: 'person', name: 'Ana' } },
    ]);
    const toCurrent = await server.api(`/api/docs/${docId}/compare?from=${first}&to=current`);
    expect(toCurrent.body.changes).toEqual([
      { kind: 'delete', blockId: block.id, text: 'two ', by: { kind: 'person', name: 'Owner' } },
      { kind: 'insert', blockId: block.id, text: ' four', by: { kind: 'person', name: 'Ana' } },
      { kind: 'insert', blockId: added.id, text: 'a new paragraph', by: { kind: 'person', name: 'Ana' } },
    ]);
    const backwards = await server.api(`/api/docs/${docId}/compare?from=${second}&to=${first}`);
    expect(backwards.body.changes).toEqual([
      { kind: 'delete', blockId: block.id, text: ' four', by: { kind: 'person', name: 'Ana' } },
      { kind: 'delete', blockId: added.id, text: 'a new paragraph', by: { kind: 'person', name: 'Ana' } },
    ]);
    expect(secondBlock).toBeDefined();
    expect((await server.api(`/api/docs/${docId}/compare?from=${first}&to=${first}`)).body.changes).toEqual([]);
    expect((await server.api(`/api/docs/${docId}/compare?to=${first}`)).status).toBe(400);
    expect((await server.api(`/api/docs/${docId}/compare?from=nope&to=current`)).status).toBe(404);
  });
});

describe('restoring a version', () => {
  it('[HIST4] makes the text that version’s as one change every peer receives, and the version before the restore takes it back', async () => {
    const docId = await server.createDoc('Restored', 'one\n\ntwo');
    const original = await nameVersion(docId, 'Original');
    const ana = await anaWrites(docId, ' changed', 'three');
    const changed = await markdownOf(server, docId);
    const viewer = server.connect(docId, server.token('viewer'));
    await viewer.synced;

    const restored = await post(`/api/docs/${docId}/versions/${original}/restore`);
    expect(restored.status).toBe(200);
    expect(await markdownOf(server, docId)).toBe('one\n\ntwo');
    await waitFor(() => textOf(ana) === 'one\n\ntwo' && textOf(viewer) === 'one\n\ntwo');

    // The text as it was before is a version now, the newest before the restore's own.
    const listed = await versions(docId);
    expect(listed.map((version) => [version.reason, version.name])).toEqual([
      ['restore', ''],
      ['auto', ''],
      ['named', 'Original'],
    ]);
    expect(listed[0].versionId).toBe(restored.body.versionId);
    expect(await versionMarkdown(docId, listed[1].versionId)).toBe(changed);

    expect((await post(`/api/docs/${docId}/versions/${listed[1].versionId}/restore`)).status).toBe(200);
    expect(await markdownOf(server, docId)).toBe(changed);
    await waitFor(() => textOf(viewer) === changed);
    // Nothing of the history went; the second restore found its text kept already.
    expect((await versions(docId)).map((version) => version.reason)).toEqual(['restore', 'restore', 'auto', 'named']);
  });

  it('[HIST4] [WHO4] keeps the writers of restored text', async () => {
    const docId = await server.createDoc('Writers', 'by the owner');
    await anaWrites(docId, ', then Ana');
    const both = await nameVersion(docId, 'Both');
    const [block] = await blocksOf(server, docId);
    const bo = server.connect(docId, server.token('editor', { sub: 'bo', name: 'Bo' }));
    await bo.synced;
    bo.ydoc.transact(() => {
      const text = firstText(bo.ydoc);
      text.delete(0, text.length);
      text.insert(0, 'all Bo');
    });
    await roundTrip(bo);
    expect(await markdownOf(server, docId)).toBe('all Bo');

    expect((await post(`/api/docs/${docId}/versions/${both}/restore`)).status).toBe(200);
    const authorship = await server.api(`/api/docs/${docId}/authorship`);
    expect(authorship.body.blocks).toEqual([
      {
        blockId: block.id,
        spans: [
          { text: 'by the owner', by: { kind: 'person', name: 'Owner' } },
          { text: ', then Ana', by: { kind: 'person', name: 'Ana' } },
        ],
      },
    ]);
  });

  it('[HIST4] refuses a restore by a viewer and changes nothing', async () => {
    const docId = await server.createDoc('Viewer', 'text');
    const version = await nameVersion(docId, 'Kept');
    await anaWrites(docId, ' more');
    expect((await post(`/api/docs/${docId}/versions/${version}/restore`, undefined, server.token('viewer'))).status).toBe(403);
    expect(await markdownOf(server, docId)).toBe('text more');
    expect((await versions(docId)).length).toBe(1);
  });
});

describe('automatic versions', () => {
  const often = useTestServer({ versionEveryMs: 150 }, 'test');

  it('[HIST2] keeps what people wrote as an automatic version by their names, at most once per interval', async () => {
    const docId = await often.createDoc('Auto', 'start');
    const ana = often.connect(docId, often.token('editor', { sub: 'ana', name: 'Ana' }));
    await ana.synced;
    appendToBlock(ana.ydoc, 0, ' typed');
    appendToBlock(ana.ydoc, 0, ' more');
    await roundTrip(ana);
    let listed: Listed[] = [];
    await waitFor(async () => (listed = (await often.api(`/api/docs/${docId}/versions`)).body).length > 0);
    expect(listed.map((version) => [version.reason, version.by.name])).toEqual([['auto', 'Ana']]);
    const markdown = await often.api(`/api/docs/${docId}/versions/${listed[0].versionId}/markdown`);
    expect(markdown.body).toBe('start typed more');
  });
});
