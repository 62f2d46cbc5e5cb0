import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/use-test-server.ts';
import { documentText, readText, typeAtEnd, useBrowser, waitForStatus } from '../helpers/browser.ts';
import { docParts } from '../../shared/model/doc-layout.ts';

const server = useTestServer();
const people = useBrowser(server);

/** A `callout` element, as a newer build of Tandem would write one, holding a paragraph of `text`. */
function newerTable(text: string): Y.XmlElement {
  const table = new Y.XmlElement('callout');
  table.setAttribute('id', 'bTable');
  table.setAttribute('columns', '1');
  const row = new Y.XmlElement('callout_row');
  const cell = new Y.XmlElement('callout_cell');
  const paragraph = new Y.XmlElement('paragraph');
  paragraph.insert(0, [new Y.XmlText(text)]);
  cell.insert(0, [paragraph]);
  row.insert(0, [cell]);
  table.insert(0, [row]);
  return table;
}

/** Connects a Node peer as the owner to document `id` and waits for its first sync. */
async function peerOf(id: string) {
  const peer = server.connect(id);
  await peer.synced;
  return peer;
}

const elementNames = (ydoc: Y.Doc) => docParts(ydoc).content.toArray().map((child) => (child as Y.XmlElement).nodeName);

describe('content written by a newer build', () => {
  it('[VER6] an unknown block survives an older client opening the document and typing on both sides of it', async () => {
    const id = await server.createDoc('Newer callout', 'Before\n\nAfter');
    const peer = await peerOf(id);
    const content = docParts(peer.ydoc).content;
    peer.ydoc.transact(() => content.insert(1, [newerTable('Cell text')]));
    const written = content.get(1).toString();

    const person = await people.openDoc(id, server.token('editor'));
    const { page } = person;
    const held = page.locator('.unknown-block');
    await held.waitFor();
    expect(await held.innerText()).toContain('callout');
    expect(await documentText(page).getAttribute('contenteditable')).toBe('true');

    await typeAtEnd(page, ' end');
    // As a person would, sees the text arrive before moving on, then clicks into the first line.
    await expect.poll(() => (content.get(2) as Y.XmlElement).toString(), { timeout: 15_000 }).toContain('After end');
    await documentText(page).locator('p').first().click();
    await page.keyboard.press('End');
    await page.keyboard.type(' start');
    await expect.poll(() => readText(page), { timeout: 15_000 }).toMatch(/^Before start\n.*callout.*\nAfter end$/);

    await expect.poll(() => (peer.ydoc.getXmlFragment('content').get(0) as Y.XmlElement).toString(), { timeout: 15_000 }).toContain('Before start');
    await expect.poll(() => (content.get(2) as Y.XmlElement).toString(), { timeout: 15_000 }).toContain('After end');
    expect(elementNames(peer.ydoc)).toEqual(['paragraph', 'callout', 'paragraph']);
    expect(content.get(1).toString()).toBe(written);
    await expect.poll(async () => (await server.api(`/api/docs/${id}/markdown`)).body, { timeout: 15_000 }).toBe('Before start\n\nAfter end');
  });

  it('[VER7] text the schema cannot hold faithfully is shown read-only with the reload notice, and kept', async () => {
    const id = await server.createDoc('Newer mark', 'Plain\n\nMarked');
    const peer = await peerOf(id);
    const content = docParts(peer.ydoc).content;
    const marked = (content.get(1) as Y.XmlElement).get(0) as Y.XmlText;
    peer.ydoc.transact(() => marked.format(0, 6, { highlight: { color: 'yellow' } }));
    const written = content.toString();

    const person = await people.openDoc(id, server.token('editor'));
    const { page } = person;
    await page.getByRole('button', { name: 'Tandem was updated — reload' }).waitFor();
    await expect.poll(() => readText(page), { timeout: 15_000 }).toBe('Plain\nMarked');
    expect(await documentText(page).getAttribute('contenteditable')).toBe('false');
    expect(await documentText(page).getAttribute('aria-readonly')).toBe('true');
    await waitForStatus(page, 'Connected');
    expect(content.toString()).toBe(written);
  });

  it('[VER7] such text arriving while the document is open unbinds the editor before it can delete it', async () => {
    const id = await server.createDoc('Newer mark, live', 'Plain\n\nMarked');
    const peer = await peerOf(id);
    const person = await people.openDoc(id, server.token('editor'));
    const { page } = person;
    await typeAtEnd(page, ' typed');
    const content = docParts(peer.ydoc).content;
    await expect.poll(() => content.toString(), { timeout: 15_000 }).toContain('Marked typed');

    const marked = (content.get(1) as Y.XmlElement).get(0) as Y.XmlText;
    peer.ydoc.transact(() => marked.format(0, 6, { highlight: { color: 'yellow' } }));
    const written = content.toString();
    await page.getByRole('button', { name: 'Tandem was updated — reload' }).waitFor();
    expect(await documentText(page).getAttribute('contenteditable')).toBe('false');
    await expect.poll(() => readText(page), { timeout: 15_000 }).toBe('Plain\nMarked typed');

    // A barrier on the server: a second peer's view of the document equals what was written.
    const second = await peerOf(id);
    expect(docParts(second.ydoc).content.toString()).toBe(written);
    expect(content.toString()).toBe(written);
  });
});
