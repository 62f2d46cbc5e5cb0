import { describe, expect, it } from 'vitest';
import { readBlocks } from '../../shared/model/doc-content.ts';
import { connectPeer, waitFor, type Peer } from '../helpers/peer.ts';
import { useTestServer } from '../helpers/use-test-server.ts';
import { appendParagraph, appendToBlock } from '../helpers/doc-builder.ts';

const server = useTestServer();

function editor(id: string): Peer {
  const peer = connectPeer({ wsUrl: server.wsUrl, name: id, token: server.token('editor') });
  server.track(peer);
  return peer;
}

const markdownOf = (peer: Peer) => readBlocks(peer.ydoc).map((block) => block.markdown);

describe('two peers on one document', () => {
  it('receive the content the document was created with', async () => {
    const id = await server.createDoc('Shared', '# Title\n\nFirst paragraph');
    const a = editor(id);
    await a.synced;
    expect(markdownOf(a)).toEqual(['# Title', 'First paragraph']);
  });

  it('converge after concurrent edits to the same block and to the end of the document', async () => {
    const id = await server.createDoc('Shared', '# Title\n\nFirst paragraph');
    const [a, b] = [editor(id), editor(id)];
    await Promise.all([a.synced, b.synced]);

    appendToBlock(a.ydoc, 1, ' from A');
    appendToBlock(b.ydoc, 1, ' from B');
    appendParagraph(a.ydoc, 'A adds');
    appendParagraph(b.ydoc, 'B adds');

    await waitFor(() => markdownOf(a).join('\n') === markdownOf(b).join('\n') && markdownOf(a).length === 4);
    const text = markdownOf(a).join('\n');
    expect(text).toContain(' from A');
    expect(text).toContain(' from B');
    expect(markdownOf(a).slice(2).sort()).toEqual(['A adds', 'B adds']);

    await waitFor(async () => {
      const { body } = await server.api(`/api/docs/${id}`);
      return body.blocks.map((block: { markdown: string }) => block.markdown).join('\n') === markdownOf(a).join('\n');
    });
  });

  it('merge edits made while one of them was offline', async () => {
    const id = await server.createDoc('Shared', 'Base');
    const [a, b] = [editor(id), editor(id)];
    await Promise.all([a.synced, b.synced]);

    const socket = b.provider.configuration.websocketProvider;
    socket.disconnect();
    await waitFor(() => socket.status === 'disconnected');
    appendToBlock(b.ydoc, 0, ' offline');
    appendToBlock(a.ydoc, 0, ' online');
    await waitFor(() => markdownOf(a)[0] === 'Base online');
    expect(markdownOf(b)[0]).toBe('Base offline');

    void socket.connect();
    await waitFor(() => markdownOf(a)[0] === markdownOf(b)[0] && markdownOf(a)[0].length === 'Base online offline'.length);
    expect(markdownOf(a)[0]).toMatch(/^Base( online offline| offline online)$/);
  });
});
