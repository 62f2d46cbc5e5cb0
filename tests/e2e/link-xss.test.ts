import * as Y from 'yjs';
import { describe, expect, it } from 'vitest';
import { docParts } from '../../shared/model/doc-layout.ts';
import { documentText, readText, useBrowser, waitForStatus } from '../helpers/browser.ts';
import { connectPeer } from '../helpers/peer.ts';
import { agentApi, blocksOf, instruct } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/*
 * Stored cross-site scripting through links (shared/PROTOCOL.md LINK1-LINK3): every way a person
 * or an agent can put a link into a document is fed script vectors, then a viewer opens the
 * document in Chromium and clicks every link. A vector that runs calls `__xss(label)`.
 */

const server = useTestServer();
const people = useBrowser(server);

const call = (label: string) => `__xss('${label}')`;

/** Pasted into the editor as HTML; character references are decoded by the HTML parser. */
const pastedHtml = [
  `<p><a href="java&#x0A;script:${call('paste-newline')}">paste-newline</a></p>`,
  `<p><a href="java&Tab;script:${call('paste-tab')}">paste-tab</a></p>`,
  `<p><a href="&#x01;javascript:${call('paste-c0')}">paste-c0</a></p>`,
  `<p><a href="&#x6A;avascript:${call('paste-entity')}">paste-entity</a></p>`,
  `<p><a href="JaVaScRiPt:${call('paste-case')}">paste-case</a></p>`,
  `<p><a href="javascript&colon;${call('paste-colon')}">paste-colon</a></p>`,
  `<p><a href="data:text/html,<script>opener.${call('paste-data')}</script>">paste-data</a></p>`,
  `<p>paste-img<img src="x" onerror="${call('paste-img')}"></p>`,
  `<p>paste-svg<svg onload="${call('paste-svg')}"></svg></p>`,
  `<p>paste-iframe<iframe src="javascript:parent.${call('paste-iframe')}"></iframe></p>`,
  `<p>paste-srcdoc<iframe srcdoc="<script>parent.${call('paste-srcdoc')}</script>"></iframe></p>`,
  `<p>paste-object<object data="javascript:${call('paste-object')}"></object></p>`,
  `<p><a href="#" onclick="${call('paste-onclick')}">paste-onclick</a></p>`,
].join('');

/** Markdown, imported with the document and written by an agent's op. */
const markdownVectors = (prefix: string) =>
  [
    `[${prefix}-plain](javascript:${call(`${prefix}-plain`)})`,
    `[${prefix}-entity](&#x6A;avascript:${call(`${prefix}-entity`)})`,
    `[${prefix}-case](JaVaScRiPt:${call(`${prefix}-case`)})`,
    `[${prefix}-colon](javascript&colon;${call(`${prefix}-colon`)})`,
    `<javascript:${call(`${prefix}-autolink`)}>`,
    `[${prefix}-data](data:text/html;base64,PHNjcmlwdD5vcGVuZXIuX194c3MoKTwvc2NyaXB0Pg==)`,
    `[${prefix}-ref][r]\n\n[r]: javascript:${call(`${prefix}-ref`)}`,
    `<a href="javascript:${call(`${prefix}-html`)}">${prefix}-html</a>`,
    `<img src="x" onerror="${call(`${prefix}-img`)}">`,
  ].join('\n\n');

/** Written by a Node peer straight into the Y.Doc, past every check of the editor. */
const rawHrefs: Record<string, string> = {
  'raw-newline': `java\nscript:${call('raw-newline')}`,
  'raw-tab': `java\tscript:${call('raw-tab')}`,
  'raw-c0': `\x01javascript:${call('raw-c0')}`,
  'raw-case': `JaVaScRiPt:${call('raw-case')}`,
  'raw-space': ` javascript:${call('raw-space')}`,
  'raw-vbscript': `vbscript:${call('raw-vbscript')}`,
};

async function writeRawLinks(docId: string): Promise<void> {
  const peer = server.track(connectPeer({ wsUrl: server.wsUrl, name: docId, token: server.ownerToken }));
  await peer.synced;
  peer.ydoc.transact(() => {
    Object.entries(rawHrefs).forEach(([label, href], i) => {
      const paragraph = new Y.XmlElement('paragraph');
      paragraph.setAttribute('id', `raw-${i}`);
      const ytext = new Y.XmlText();
      ytext.insert(0, label, { link: { href, title: null } });
      paragraph.insert(0, [ytext]);
      docParts(peer.ydoc).content.push([paragraph]);
    });
  });
  await expect.poll(async () => (await server.api(`/api/docs/${docId}/markdown`)).body).toContain('raw-vbscript');
}

async function writeAgentLinks(docId: string): Promise<void> {
  const [first] = await blocksOf(server, docId);
  const instructionId = await instruct(server, docId, first.id, 'Add links');
  const sent = await server.api(`/api/docs/${docId}/runs`, { method: 'POST' });
  expect(sent.status).toBe(201);
  const bot = agentApi(server, server.token('agent', { sub: 'link-agent' }));
  expect((await bot.claim(sent.body.runId)).status).toBe(200);
  const ops = [{ op: 'insert_after', blockId: first.id, markdown: markdownVectors('agent'), instructionId }];
  expect((await bot.ops(sent.body.runId, 'links', ops)).status).toBe(200);
}

describe('links written through every path', () => {
  it('[LINK2] [LINK3] run nothing when a viewer clicks them in Chromium', async () => {
    // The links' handlers are refused by the policy, which the browser reports in the console.
    people.allowPageError(/violates the following Content Security Policy directive 'script-src 'self''/);
    const docId = await server.createDoc('Links', `Start.\n\n${markdownVectors('import')}`);
    await writeAgentLinks(docId);

    const editor = await people.open(`/d/${docId}`, server.token('editor', { name: 'Paster' }));
    try {
      await waitForStatus(editor.page, 'Connected');
      await documentText(editor.page).click();
      await editor.page.keyboard.press('Control+End');
      await documentText(editor.page).evaluate((target, html) => {
        const data = new DataTransfer();
        data.setData('text/html', html);
        data.setData('text/plain', 'pasted');
        target.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
      }, pastedHtml);
      await expect.poll(() => readText(editor.page)).toContain('paste-onclick');
      await expect.poll(async () => (await server.api(`/api/docs/${docId}/markdown`)).body).toContain('paste-onclick');
    } finally {
      await editor.context.close();
    }
    await writeRawLinks(docId);

    const viewer = await people.open(`/d/${docId}`, server.token('viewer', { name: 'Reader' }));
    try {
      const ran: string[] = [];
      await viewer.page.exposeFunction('__xss', (label: string) => ran.push(label));
      await viewer.page.evaluate(() => (window as unknown as { __xss(label: string): void }).__xss('control'));
      await expect.poll(() => ran).toEqual(['control']);
      ran.length = 0;

      await waitForStatus(viewer.page, 'Connected');
      const text = () => readText(viewer.page);
      for (const label of ['import-plain', 'agent-plain', 'paste-onclick', 'raw-vbscript']) await expect.poll(text).toContain(label);

      const anchors = documentText(viewer.page).locator('a');
      const count = await anchors.count();
      // Every raw mark at least is drawn as an anchor, so the clicks below land on links.
      expect(count).toBeGreaterThanOrEqual(Object.keys(rawHrefs).length);

      const path = new URL(viewer.page.url()).pathname;
      for (let i = 0; i < count; i++) {
        await anchors.nth(i).click();
        expect(new URL(viewer.page.url()).pathname).toBe(path);
      }
      // A barrier: a frame and a task later, whatever a click queued on the page has run.
      await viewer.page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 0)))));
      await viewer.page.evaluate(() => (window as unknown as { __xss(label: string): void }).__xss('barrier'));
      await expect.poll(() => ran.includes('barrier')).toBe(true);
      expect(ran.filter((label) => label !== 'barrier')).toEqual([]);

      // Inert without the page's Content-Security-Policy too: no anchor holds a refused target.
      const targets = await anchors.evaluateAll((links) => links.map((link) => (link.hasAttribute('href') ? (link as HTMLAnchorElement).href : null)));
      const unsafe = targets.filter((href) => href !== null && !['http:', 'https:', 'mailto:'].includes(new URL(href).protocol));
      expect(unsafe).toEqual([]);
    } finally {
      await viewer.context.close();
    }
  });
});
