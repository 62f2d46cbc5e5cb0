import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useTestServer } from '../helpers/use-test-server.ts';
import { reviewPanel, useBrowser } from '../helpers/browser.ts';
import { agentApi } from '../helpers/runs.ts';
import { byTag, createPage, instructElement } from '../helpers/pages.ts';
import { docParts } from '../../shared/model/doc-layout.ts';

/*
 * A page's review and notes as people read them (shared/PROTOCOL.md REV12, PAGE14, PAGE15):
 * each change is decided on its own, live for everyone; the review shows text, not element
 * markup; an element without text is named by its kind; the draft instructions a discard
 * leaves have the text's actions.
 */

const server = useTestServer();
const people = useBrowser(server);

const frame = (page: Page) => page.frameLocator('iframe[title="Page"]');

const pixel = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

const longHeading = 'Welcome to the best landing page ever written';
const landing =
  `<h1>${longHeading}</h1><p class="intro">Read the docs.</p>` +
  `<img src="data:image/png;base64,${pixel}" alt="A cat">`;

/**
 * A page run in review, answered through the agent API: the heading's text set, the
 * paragraph's class changed, the instruction on the image refused.
 */
async function reviewedRun() {
  const page = await createPage(server, landing);
  const [h1, p, img] = [byTag(page.elements, 'h1'), byTag(page.elements, 'p'), byTag(page.elements, 'img')];
  const ids = [
    await instructElement(server, page.id, h1.id, 'shorter'),
    await instructElement(server, page.id, p.id, 'make it stand out'),
    await instructElement(server, page.id, img.id, 'a dog instead'),
  ];
  const runId = (await server.api(`/api/docs/${page.id}/runs`, { method: 'POST' })).body.runId as string;
  const bot = agentApi(server, server.token('agent'));
  expect((await bot.claim(runId)).status).toBe(200);
  const applied = await bot.ops(runId, 'k1', [
    { op: 'set_text', elementId: h1.id, text: 'Welcome', expectHash: h1.hash, instructionId: ids[0] },
    { op: 'set_attribute', elementId: p.id, name: 'class', value: 'lead', expectHash: p.hash, instructionId: ids[1] },
  ]);
  expect(applied.status).toBe(200);
  const completed = await bot.complete(runId, { refusals: [{ instructionId: ids[2], reason: 'I only have cats.' }] });
  expect(completed.status).toBe(200);
  return { docId: page.id, runId };
}

/** The removed and added pieces of the review's change `n` (1-based), and its whole text. */
async function reviewChange(page: Page, n: number): Promise<{ removed: string[]; added: string[]; text: string }> {
  const change = reviewPanel(page).locator('.review-item').nth(n - 1).locator('.review-change');
  return {
    removed: await change.locator('del').allTextContents(),
    added: await change.locator('ins').allTextContents(),
    text: (await change.textContent()) ?? '',
  };
}

describe('the review of a page run', () => {
  it('[PAGE8] [REV12] [REV13] one person discards change 1 by keyboard, the other accepts change 2 by its button; both pages follow live', async () => {
    const { docId, runId } = await reviewedRun();
    const alice = await people.openDoc(docId, server.token('editor', { name: 'Alice' }));
    const bob = await people.openDoc(docId, server.token('editor', { name: 'Bob' }));
    for (const person of [alice, bob]) {
      const panel = reviewPanel(person.page);
      await panel.getByRole('button', { name: 'Accept run' }).waitFor();
      expect(await panel.getByRole('group', { name: /^Change \d$/ }).count()).toBe(3);
      // The refused instruction (change 3) changed nothing: it has nothing to decide.
      expect(await panel.getByRole('button', { name: 'Accept change' }).count()).toBe(2);
      expect(await panel.getByRole('group', { name: 'Change 3' }).getByRole('button', { name: 'Accept change' }).count()).toBe(0);
    }

    // Alice: Alt+Shift+N focuses change 1, Alt+Shift+D discards it; the page keeps its heading.
    await alice.page.keyboard.press('Alt+Shift+KeyN');
    await expect.poll(() => alice.page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Change 1');
    await alice.page.keyboard.press('Alt+Shift+KeyD');
    for (const person of [alice, bob]) {
      const first = reviewPanel(person.page).getByRole('group', { name: 'Change 1' });
      await first.getByText('Discarded', { exact: true }).waitFor();
      expect(await first.getByRole('button', { name: 'Discard change' }).count()).toBe(0);
    }
    expect((await server.api(`/api/runs/${runId}`)).body.state).toBe('review');
    // The candidate shows only what is still undecided: the new class, not the discarded heading.
    await bob.page.getByRole('button', { name: 'Candidate' }).click();
    await expect.poll(() => frame(bob.page).locator('p').getAttribute('class')).toBe('lead');
    expect(await frame(bob.page).locator('h1').textContent()).toBe(longHeading);
    await bob.page.getByRole('button', { name: 'Source' }).click();
    await expect.poll(() => frame(bob.page).locator('p').getAttribute('class')).toBe('intro');

    // Bob accepts change 2 with its button: the page takes it at once, and the run is decided.
    await reviewPanel(bob.page).getByRole('group', { name: 'Change 2' }).getByRole('button', { name: 'Accept change' }).click();
    await expect.poll(async () => (await server.api(`/api/runs/${runId}`)).body.state).toBe('accepted');
    for (const person of [alice, bob]) {
      await expect.poll(() => reviewPanel(person.page).count()).toBe(0);
      await expect.poll(() => frame(person.page).locator('p').getAttribute('class')).toBe('lead');
      expect(await frame(person.page).locator('h1').textContent()).toBe(longHeading);
    }
    const items = (await server.api(`/api/runs/${runId}`)).body.items as { decision: string }[];
    expect(items.map((item) => item.decision)).toEqual(['discarded', 'accepted', 'accepted']);
  });

  it('[REV6] [REV12] says under an accepted change that it was not applied when its element was removed meanwhile', async () => {
    const { docId, runId } = await reviewedRun();
    const alice = await people.openDoc(docId, server.token('editor', { name: 'Alice' }));
    const second = reviewPanel(alice.page).getByRole('group', { name: 'Change 2' });
    await second.getByRole('button', { name: 'Accept change' }).waitFor();
    // Someone removes the paragraph from the page's source meanwhile.
    const editor = server.connect(docId);
    await editor.synced;
    const source = docParts(editor.ydoc).html;
    const paragraph = /<p [^>]*>Read the docs\.<\/p>/.exec(source.toString())!;
    source.delete(paragraph.index, paragraph[0].length);
    await expect.poll(() => frame(alice.page).locator('p').count()).toBe(0);

    await second.getByRole('button', { name: 'Accept change' }).click();
    await second.getByText('Accepted', { exact: true }).waitFor();
    await expect.poll(() => second.locator('.review-not-applied').textContent()).toBe('Not applied: the element was removed meanwhile.');
    expect(await reviewPanel(alice.page).getByRole('group', { name: 'Change 1' }).locator('.review-not-applied').count()).toBe(0);
    expect((await server.api(`/api/runs/${runId}`)).body.state).toBe('review');
  });

  it('[PAGE15] shows the text a change made, and an attribute change as the attribute', async () => {
    const { docId } = await reviewedRun();
    const alice = await people.openDoc(docId, server.token('editor', { name: 'Alice' }));
    await reviewPanel(alice.page).waitFor();

    const heading = await reviewChange(alice.page, 1);
    expect(heading.removed).toEqual([' to the best landing page ever written']);
    expect(heading.added).toEqual([]);
    expect(heading.text.trim()).toBe('Welcomeremoved:  to the best landing page ever written');

    const paragraph = await reviewChange(alice.page, 2);
    expect(paragraph.removed).toEqual(['intro']);
    expect(paragraph.added).toEqual(['lead']);
    expect(paragraph.text).not.toContain('data-tandem-id');
  });

  it('[PAGE15] names the image of a refused instruction by its kind and alt text', async () => {
    const { docId } = await reviewedRun();
    const alice = await people.openDoc(docId, server.token('editor', { name: 'Alice' }));
    await reviewPanel(alice.page).waitFor();
    const image = reviewPanel(alice.page).locator('.review-item').nth(2);
    expect(await image.locator('.review-outcome').textContent()).toBe('Refused');
    expect(await image.locator('.review-quote').textContent()).toBe('on image “A cat”');
  });
});

describe('draft instructions on a page', () => {
  it('[PAGE14] made by a discard with a reason can be marked ready, edited and deleted, as on text', async () => {
    const { docId } = await reviewedRun();
    const alice = await people.openDoc(docId, server.token('editor', { name: 'Alice' }));
    const review = reviewPanel(alice.page);
    await review.getByLabel('Reason for discarding (optional)').click();
    await alice.page.keyboard.type('Keep the whole sentence');
    await review.getByRole('button', { name: 'Discard run' }).click();
    await review.waitFor({ state: 'detached' });

    const notes = alice.page.getByRole('list', { name: 'Notes' });
    // The drafts are the cards that say what was discarded (the instructions of the run stay, answered).
    const heading = notes.getByRole('article', { name: 'Instruction on “Welcome to the best landing page ever written”' }).filter({ hasText: 'Discarded change' });
    const paragraph = notes.getByRole('article', { name: 'Instruction on “Read the docs.”' }).filter({ hasText: 'Discarded change' });
    await heading.waitFor();
    expect(await heading.locator('.card-state').textContent()).toBe('Draft');
    // What the run had proposed, as text (the heading) and as the attribute (the paragraph).
    expect(await heading.locator('.card-discarded').textContent()).toBe('Discarded change: Welcome');
    expect(await paragraph.locator('.card-discarded').textContent()).toBe('Discarded change: <p class="lead">');

    // The card's quote shows its element in the frame.
    await heading.getByRole('button', { name: '“Welcome to the best landing page ever written”' }).click();
    await expect.poll(() => frame(alice.page).locator('h1[data-tandem-hover]').count()).toBe(1);

    await heading.getByRole('button', { name: 'Mark ready' }).click();
    await expect.poll(() => heading.locator('.card-state').textContent()).toBe('Ready');
    await alice.page.getByRole('button', { name: 'Send 1 to agent' }).waitFor();

    await paragraph.getByRole('button', { name: 'Edit' }).click();
    const box = paragraph.getByLabel('Edit instruction');
    await box.press('ControlOrMeta+a');
    await box.pressSequentially('Bold instead');
    await paragraph.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => paragraph.locator('.card-text').textContent()).toBe('Bold instead');

    await paragraph.getByRole('button', { name: 'Delete' }).click();
    await paragraph.waitFor({ state: 'detached' });
    await expect.poll(async () => (await server.api(`/api/docs/${docId}`)).body.annotations.filter((a: { state: string }) => a.state === 'draft').length).toBe(0);
    expect(await heading.count()).toBe(1);
  });
});
