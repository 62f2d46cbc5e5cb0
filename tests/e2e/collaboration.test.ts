import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/use-test-server.ts';
import {
  documentText,
  useBrowser,
  readText,
  typeAtEnd,
  waitForOfflineReady,
  waitForSavedLocally,
  waitForStatus,
} from '../helpers/browser.ts';

const server = useTestServer();
const people = useBrowser(server);

describe('two people in two browsers', () => {
  it('see each other type live, with names on their cursors', async () => {
    const id = await server.createDoc('Live', 'Start.');
    const alice = await people.open(`/d/${id}`, server.token('editor', { name: 'Alice' }));
    const bob = await people.open(`/d/${id}`, server.token('editor', { name: 'Bob' }));
    try {
      await waitForStatus(alice.page, 'Connected');
      await waitForStatus(bob.page, 'Connected');
      await expect.poll(() => bob.page.getByRole('list', { name: 'Who is here' }).innerText()).toContain('Alice');

      await typeAtEnd(alice.page, ' Alice writes.');
      await expect.poll(() => readText(bob.page)).toBe('Start. Alice writes.');

      await typeAtEnd(bob.page, ' Bob answers.');
      await expect.poll(() => readText(alice.page)).toBe('Start. Alice writes. Bob answers.');
      await alice.page.locator('.ProseMirror-yjs-cursor', { hasText: 'Bob' }).waitFor();

      const markdown = await server.api(`/api/docs/${id}/markdown`);
      await expect.poll(async () => (await server.api(`/api/docs/${id}/markdown`)).body).toBe('Start. Alice writes. Bob answers.');
      expect(markdown.status).toBe(200);
    } finally {
      await alice.context.close();
      await bob.context.close();
    }
  });

  it('keep writing while the server is down, survive a reload, and lose nothing when it returns', async () => {
    const id = await server.createDoc('Outage', 'Before.');
    const alice = await people.open(`/d/${id}`, server.token('editor', { name: 'Alice' }));
    const bob = await people.open(`/d/${id}`, server.token('editor', { name: 'Bob' }));
    try {
      for (const person of [alice, bob]) {
        await waitForStatus(person.page, 'Connected');
        await waitForOfflineReady(person.page);
      }

      await server.stop();
      await waitForStatus(alice.page, 'Offline');
      await waitForStatus(bob.page, 'Offline');

      await typeAtEnd(alice.page, ' Alice offline.');
      await typeAtEnd(bob.page, ' Bob offline.');
      await expect.poll(() => readText(alice.page)).toBe('Before. Alice offline.');
      await expect.poll(() => readText(bob.page)).toBe('Before. Bob offline.');

      await waitForSavedLocally(alice.page);
      await alice.page.reload();
      await expect.poll(() => readText(alice.page)).toBe('Before. Alice offline.');
      await waitForStatus(alice.page, 'Offline');
      expect(await documentText(alice.page).getAttribute('contenteditable')).toBe('true');
      await typeAtEnd(alice.page, ' After reload.');
      await expect.poll(() => readText(alice.page)).toBe('Before. Alice offline. After reload.');

      await server.restart();
      await waitForStatus(alice.page, 'Connected');
      await waitForStatus(bob.page, 'Connected');

      const holdsEveryEdit = (text: string) =>
        ['Before.', 'Alice offline.', 'After reload.', 'Bob offline.'].every((part) => text.includes(part));
      await expect.poll(async () => holdsEveryEdit(await readText(alice.page)), { timeout: 15_000 }).toBe(true);
      await expect.poll(async () => holdsEveryEdit(await readText(bob.page)), { timeout: 15_000 }).toBe(true);
      expect(await readText(alice.page)).toBe(await readText(bob.page));
      await expect
        .poll(async () => holdsEveryEdit((await server.api(`/api/docs/${id}/markdown`)).body), { timeout: 15_000 })
        .toBe(true);
    } finally {
      await alice.context.close();
      await bob.context.close();
    }
  });
});
