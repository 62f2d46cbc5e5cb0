import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useTestServer } from '../helpers/use-test-server.ts';
import {
  annotationCards,
  clickBefore,
  highlightedText,
  useBrowser,
  pinAnnotation,
  progressLine,
  readText,
  selectText,
  waitForOfflineReady,
  waitForSavedLocally,
  waitForStatus,
  type Person,
} from '../helpers/browser.ts';

const server = useTestServer();
const people = useBrowser(server);

const open = (id: string, role: 'editor' | 'commenter' | 'viewer', name: string): Promise<Person> => people.openDoc(id, server.token(role, { name }));

/** Starts the server again if a test stopped it (a no-op when it runs). */
let serverDown = false;
async function stopServer(): Promise<void> {
  serverDown = true;
  await server.stop();
}
async function restartServer(): Promise<void> {
  if (!serverDown) return;
  serverDown = false;
  await server.restart();
}

const card = (page: Page, id: string) => page.locator(`.annotation-card[data-annotation-id="${id}"]`);
const queueCount = (page: Page) => page.locator('.queue-count');

/** Each card's kind as its label reads (`Comment` or `Instruction`) and its CSS class says. */
function cardKinds(page: Page) {
  return annotationCards(page).evaluateAll((cards) =>
    cards.map((each) => `${each.querySelector('.card-kind')?.textContent}:${each.getAttribute('data-kind')}`),
  );
}

describe('comments and instructions pinned to text', () => {
  it('travel live between two people, follow their words, and go to the agent as one run', async () => {
    const id = await server.createDoc('Plan', 'The quick brown fox jumps over the lazy dog.\n\nA second paragraph.');
    const alice = await open(id, 'editor', 'Alice');
    const bob = await open(id, 'editor', 'Bob');
    const comment = await pinAnnotation(alice.page, 'comment', 'quick brown', 'Is this too cute?');
    const upper = await pinAnnotation(alice.page, 'instruction', 'lazy dog', 'uppercase');
    // Overlaps the comment on "brown".
    const replace = await pinAnnotation(alice.page, 'instruction', 'brown fox', 'replace "fox" with "cat"');

    // Bob sees all three at once, told apart by label and class, in the margin and the text.
    await expect.poll(() => annotationCards(bob.page).count()).toBe(3);
    expect((await cardKinds(bob.page)).sort()).toEqual(['Comment:comment', 'Instruction:instruction', 'Instruction:instruction']);
    await expect.poll(() => highlightedText(bob.page, comment)).toBe('quick brown');
    await expect.poll(() => highlightedText(bob.page, replace)).toBe('brown fox');
    await expect.poll(() => highlightedText(bob.page, upper)).toBe('lazy dog');
    expect(await bob.page.locator(`mark[data-annotation-id="${comment}"]`).first().getAttribute('class')).toContain('kind-comment');
    expect(await bob.page.locator(`mark[data-annotation-id="${upper}"]`).first().getAttribute('class')).toContain('kind-instruction');
    await expect.poll(() => queueCount(bob.page).textContent()).toBe('2 instructions ready');

    // Bob writes before the pinned words, and splits the paragraph with Enter before them
    // (which on its own would orphan the anchors, y-prosemirror #204): the pins stay put.
    await clickBefore(bob.page, 'The quick');
    await bob.page.keyboard.type('Look: ');
    await bob.page.keyboard.press('Enter');
    await expect.poll(() => readText(alice.page)).toBe('Look: \nThe quick brown fox jumps over the lazy dog.\nA second paragraph.');
    for (const person of [alice, bob]) {
      await expect.poll(() => highlightedText(person.page, comment)).toBe('quick brown');
      await expect.poll(() => highlightedText(person.page, replace)).toBe('brown fox');
      await expect.poll(() => highlightedText(person.page, upper)).toBe('lazy dog');
    }
    expect(await bob.page.getByText('original text deleted').count()).toBe(0);

    // Clicking a card selects its text; clicking highlighted text brings its card into focus.
    await card(bob.page, upper).locator('.card-text').click();
    await expect.poll(() => bob.page.evaluate(() => getSelection()?.toString())).toBe('lazy dog');
    await bob.page.locator(`mark[data-annotation-id="${comment}"]`).first().click();
    await expect.poll(() => card(bob.page, comment).getAttribute('class')).toContain('is-active');

    // Alice turns the comment into an instruction: a new card linked both ways.
    await card(alice.page, comment).getByRole('button', { name: 'Turn into an instruction' }).click();
    for (const person of [alice, bob]) {
      await expect.poll(() => queueCount(person.page).textContent()).toBe('3 instructions ready');
      await expect.poll(() => annotationCards(person.page).count()).toBe(4);
    }
    await expect(card(alice.page, comment).textContent()).resolves.toContain('Turned into an instruction');
    const escalated = alice.page.locator('.annotation-card.kind-instruction', { hasText: 'From a comment' });
    await expect(escalated.locator('.card-text').textContent()).resolves.toBe('Is this too cute?');
    await expect(escalated.locator('.card-quote').textContent()).resolves.toBe('“quick brown”');

    // The send dialog lists exactly the three, with their targets.
    await alice.page.getByRole('button', { name: 'Send 3 to agent' }).click();
    const dialog = alice.page.getByRole('dialog');
    await dialog.waitFor();
    expect(await dialog.getAttribute('aria-modal')).toBe('true');
    const items = await dialog.locator('.send-item').evaluateAll((list) =>
      list.map((item) => `${item.querySelector('.send-text')?.textContent} ${item.querySelector('.send-target')?.textContent}`),
    );
    expect(items.sort()).toEqual(
      ['Is this too cute? on “quick brown”', 'replace "fox" with "cat" on “brown fox”', 'uppercase on “lazy dog”'].sort(),
    );
    // Escape closes it; nothing was sent.
    await alice.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await queueCount(alice.page).textContent()).toBe('3 instructions ready');

    await alice.page.getByRole('button', { name: 'Send 3 to agent' }).click();
    await dialog.getByRole('button', { name: 'Send', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
    for (const person of [alice, bob]) {
      await expect.poll(() => queueCount(person.page).count()).toBe(0);
      await expect.poll(() => card(person.page, upper).locator('.card-state').textContent()).not.toBe('Ready');
    }

    // While the run is outstanding (RUN2) the bar offers no second send and says why.
    const pending = await pinAnnotation(alice.page, 'instruction', 'second paragraph', 'lowercase');
    await expect.poll(() => queueCount(alice.page).textContent()).toBe('1 instruction ready');
    await alice.page.getByText('A run is waiting for an agent').waitFor();
    expect(await alice.page.getByRole('button', { name: 'Send 1 to agent' }).isDisabled()).toBe(true);
    await expect.poll(() => progressLine(bob.page)).toBe('Sent · waiting for an agent');

    // A queued instruction can still be edited and deleted; a sent one cannot.
    const lower = card(alice.page, pending);
    await lower.getByRole('button', { name: 'Edit' }).click();
    const edit = lower.getByRole('textbox', { name: 'Edit instruction' });
    await edit.fill('uppercase');
    await edit.press('Enter');
    await expect.poll(() => card(bob.page, pending).locator('.card-text').textContent()).toBe('uppercase');
    expect(await card(alice.page, upper).getByRole('button', { name: 'Edit' }).count()).toBe(0);
    await lower.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => card(bob.page, pending).count()).toBe(0);
    await expect.poll(() => queueCount(alice.page).count()).toBe(0);
  });

  it('keep a comment made offline and deliver it when the server is back', async () => {
    const id = await server.createDoc('Offline notes', 'Words to talk about.');
    const alice = await open(id, 'editor', 'Alice');
    const bob = await open(id, 'editor', 'Bob');
    try {
      await waitForOfflineReady(alice.page);
      await stopServer();
      await waitForStatus(alice.page, 'Offline');
      await waitForStatus(bob.page, 'Offline');

      const comment = await pinAnnotation(alice.page, 'comment', 'talk about', 'Made on a train.');
      await pinAnnotation(alice.page, 'instruction', 'Words', 'uppercase');
      // Sending needs the server: the button says why it is disabled.
      await expect.poll(() => queueCount(alice.page).textContent()).toBe('1 instruction ready');
      expect(await alice.page.getByRole('button', { name: 'Send 1 to agent' }).isDisabled()).toBe(true);
      await alice.page.getByText('Sending needs a connection').waitFor();

      // Kept on the device: a reload with the server still down shows it again.
      await waitForSavedLocally(alice.page);
      await alice.page.reload();
      await waitForStatus(alice.page, 'Offline');
      await card(alice.page, comment).waitFor();
      await expect.poll(() => highlightedText(alice.page, comment)).toBe('talk about');

      await restartServer();
      await waitForStatus(alice.page, 'Connected');
      await waitForStatus(bob.page, 'Connected');
      await card(bob.page, comment).waitFor({ timeout: 15_000 });
      await expect.poll(() => highlightedText(bob.page, comment)).toBe('talk about');
      await expect(card(bob.page, comment).locator('.card-text').textContent()).resolves.toBe('Made on a train.');
      expect(await alice.page.getByRole('button', { name: 'Send 1 to agent' }).isDisabled()).toBe(false);
    } finally {
      await restartServer();
    }
  });

  it('show commenters only Comment, viewers neither, and an orphaned pin with its quote', async () => {
    const id = await server.createDoc('Roles', 'Alpha beta gamma.\n\nDelta epsilon.');
    const editor = await open(id, 'editor', 'Erin');
    const commenter = await open(id, 'commenter', 'Carl');
    const viewer = await open(id, 'viewer', 'Vera');
    const comment = await pinAnnotation(commenter.page, 'comment', 'beta', 'Which beta?');
    expect(await commenter.page.getByRole('button', { name: 'Instruct', exact: true }).count()).toBe(0);
    await card(editor.page, comment).waitFor();

    await selectText(viewer.page, 'gamma');
    await card(viewer.page, comment).waitFor();
    expect(await viewer.page.getByRole('button', { name: 'Comment', exact: true }).count()).toBe(0);
    expect(await viewer.page.getByRole('button', { name: 'Instruct', exact: true }).count()).toBe(0);
    expect(await card(viewer.page, comment).getByRole('button').count()).toBe(1);

    // The commenter may reply but not resolve; the editor resolves (the highlight goes) and reopens.
    expect(await card(commenter.page, comment).getByRole('button', { name: 'Resolve' }).count()).toBe(0);
    await card(commenter.page, comment).getByRole('button', { name: 'Reply' }).click();
    const reply = card(commenter.page, comment).getByRole('textbox', { name: 'Reply' });
    await reply.fill('The second letter.');
    await reply.press('Enter');
    await expect.poll(() => card(editor.page, comment).locator('.card-replies').textContent()).toContain('The second letter.');
    await card(editor.page, comment).getByRole('button', { name: 'Resolve' }).click();
    await expect.poll(() => viewer.page.locator(`mark[data-annotation-id="${comment}"]`).count()).toBe(0);
    await expect.poll(() => card(viewer.page, comment).locator('.card-state').textContent()).toBe('Resolved');
    await card(editor.page, comment).getByRole('button', { name: 'Reopen' }).click();
    await expect.poll(() => highlightedText(viewer.page, comment)).toBe('beta');

    // The editor deletes the commented word: the card stays, with its quote, marked as orphaned.
    await selectText(editor.page, 'beta ');
    await editor.page.keyboard.press('Backspace');
    for (const person of [editor, commenter, viewer]) {
      await expect.poll(() => card(person.page, comment).textContent()).toContain('original text deleted');
      expect(await card(person.page, comment).locator('.card-quote').textContent()).toContain('“beta”');
      expect(await person.page.locator(`mark[data-annotation-id="${comment}"]`).count()).toBe(0);
    }
  });
});
