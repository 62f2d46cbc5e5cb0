import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { useTestServer } from '../helpers/use-test-server.ts';
import { documentText, useBrowser, waitForStatus } from '../helpers/browser.ts';
import { connectPeer } from '../helpers/peer.ts';
import { docParts } from '../../shared/model/doc-layout.ts';

const server = useTestServer();
const people = useBrowser(server);

const hostileName = '<img src=x onerror="window.__pwned=1">Support';
const hostileColor = 'red;position:fixed;inset:0;z-index:9999;background:white';

describe('a hostile peer’s presence in the browser', () => {
  it('[PRES4] shows its name as text and its cursor without its style, covering nothing', async () => {
    const id = await server.createDoc('Overlay', 'Some text to read.');
    const alice = await people.open(`/d/${id}`, server.token('editor', { name: 'Alice' }));
    try {
      await waitForStatus(alice.page, 'Connected');
      const attacker = server.track(connectPeer({ wsUrl: server.wsUrl, name: id, token: server.token('editor', { name: hostileName }) }));
      await attacker.synced;
      const paragraph = docParts(attacker.ydoc).content.get(0) as Y.XmlElement;
      const at = Y.relativePositionToJSON(Y.createRelativePositionFromTypeIndex(paragraph.get(0) as Y.XmlText, 4));
      attacker.provider.awareness!.setLocalState({
        user: { name: hostileName, color: hostileColor, role: 'editor' },
        cursor: { anchor: at, head: at },
      });

      const cursor = alice.page.locator('.ProseMirror-yjs-cursor');
      await cursor.waitFor();
      expect(await cursor.innerText()).toContain(hostileName);
      expect(await cursor.locator('img').count()).toBe(0);
      expect(await cursor.evaluate((el) => getComputedStyle(el).position)).toBe('relative');
      expect(await alice.page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();

      const editorBox = (await documentText(alice.page).boundingBox())!;
      const topmost = await alice.page.evaluate(
        ({ x, y }) => document.elementFromPoint(x, y)?.closest('.ProseMirror') !== null,
        { x: editorBox.x + editorBox.width / 2, y: editorBox.y + 10 },
      );
      expect(topmost).toBe(true);
      await expect.poll(() => alice.page.getByRole('list', { name: 'Who is here' }).innerText()).toContain(hostileName);
    } finally {
      await alice.context.close();
    }
  });
});
