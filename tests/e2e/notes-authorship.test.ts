import type * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { readAnnotation } from '../../shared/notes/annotations.ts';
import { notesParts } from '../../shared/model/doc-layout.ts';
import { annotationCards, pinAnnotation, useBrowser, waitForStatus } from '../helpers/browser.ts';
import { notesPeer } from '../helpers/notes-peers.ts';
import { waitFor } from '../helpers/peer.ts';
import { createDoc, instruct } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

const server = useTestServer();
const people = useBrowser(server);

describe('who wrote a note, and what was sent', () => {
  it('[NOTES9] writes notes under the token’s name, the one name the app offers (no name of the device’s own)', async () => {
    const id = await server.createDoc('Names', 'The quick brown fox.');
    const alice = await people.open('/', server.token('editor', { sub: 'alice', name: 'Alice' }));
    await alice.page.getByRole('button', { name: 'New document' }).waitFor();
    expect(await alice.page.getByLabel('Your name').count()).toBe(0);
    await alice.page.goto(`${server.url}/d/${id}`);
    await waitForStatus(alice.page, 'Connected');

    const comment = await pinAnnotation(alice.page, 'comment', 'quick brown', 'Too cute?');
    await expect.poll(async () => (await server.api(`/api/docs/${id}`)).body.annotations.map((note: { id: string }) => note.id)).toEqual([comment]);
    const stored = (await server.api(`/api/docs/${id}`)).body.annotations[0];
    expect(stored.author).toEqual({ id: 'alice', name: 'Alice' });
    expect(await annotationCards(alice.page).locator('.card-author').innerText()).toBe('Alice');
    await waitForStatus(alice.page, 'Connected');
  });

  it('[NOTES5] shows an instruction edited after it was sent with the work order its run carried', async () => {
    const doc = await createDoc(server, 'first block\n\nsecond block');
    const instructionId = await instruct(server, doc.id, doc.blocks[0].id, 'uppercase');
    const sent = await server.api(`/api/docs/${doc.id}/runs`, { method: 'POST' });
    expect(sent.status).toBe(201);
    const bob = await people.open(`/d/${doc.id}`, server.token('editor', { sub: 'bob', name: 'Bob' }));
    await waitForStatus(bob.page, 'Connected');
    const card = bob.page.locator(`.annotation-card[data-annotation-id="${instructionId}"]`);
    await expect.poll(() => card.locator('.card-state').innerText()).toBe('Sent');
    expect(await card.locator('.card-edited').count()).toBe(0);

    // An edit made on a replica that had not seen the Send yet reaches the server afterwards.
    const late = notesPeer(server, doc.id, { sub: 'ed', name: 'Ed', role: 'editor' });
    await late.synced;
    await waitFor(() => readAnnotation(late.ydoc, instructionId).ok);
    const record = notesParts(late.ydoc).annotations.get(instructionId) as Y.Map<unknown>;
    (record.get('turns') as Y.Array<Y.Map<unknown>>).get(0).set('text', 'lowercase');

    await expect.poll(() => card.locator('.card-text').innerText()).toBe('lowercase');
    expect(await card.locator('.card-edited').innerText()).toBe('Edited after it was sent. The agent got: “uppercase”');
    expect(await card.locator('.card-state').innerText()).toBe('Sent');
    expect(late.closed).toEqual([]);
  });
});
