import { describe, expect, it } from 'vitest';
import { readBlocks } from '../../shared/model/doc-content.ts';
import { useTestServer } from '../helpers/use-test-server.ts';
import { readText, typeAtEnd, useBrowser, waitForStatus } from '../helpers/browser.ts';
import { appendParagraph } from '../helpers/doc-builder.ts';
import { waitFor } from '../helpers/peer.ts';
import { connectYjsPeer } from '../helpers/yjs-peer.ts';

const server = useTestServer();
const people = useBrowser(server);

describe('a standard Yjs client beside a person in the app', () => {
  it('[YWS1] writes into the page the person sees, is listed among who is here, and receives what the person types', async () => {
    const id = await server.createDoc('Bridged', 'Start.');
    const alice = await people.open(`/d/${id}`, server.token('editor', { name: 'Alice' }));
    const script = server.track(connectYjsPeer({ wsUrl: server.wsUrl, name: id, token: server.token('editor', { name: 'Script' }) }));
    try {
      await waitForStatus(alice.page, 'Connected');
      await script.synced;
      script.provider.awareness.setLocalStateField('user', { name: 'Script', color: '#336699' });

      appendParagraph(script.ydoc, 'Written by a script.');
      await expect.poll(() => readText(alice.page)).toBe('Start.\nWritten by a script.');
      await expect.poll(() => alice.page.getByRole('list', { name: 'Who is here' }).innerText()).toContain('Script');

      await typeAtEnd(alice.page, ' Alice answers.');
      await waitFor(() => readBlocks(script.ydoc).at(-1)?.markdown === 'Written by a script. Alice answers.', 10_000);
    } finally {
      await alice.context.close();
    }
  });
});
