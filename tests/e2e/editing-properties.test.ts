import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Page } from 'playwright-core';
import type * as Y from 'yjs';
import { useTestServer } from '../helpers/use-test-server.ts';
import { documentText, readText, useBrowser } from '../helpers/browser.ts';
import { startOracleEditor, type OracleEditor } from '../helpers/oracle-editor.ts';
import { describeActions, editingActions, perform, textWithoutIds, type EditingAction } from '../helpers/editing-actions.ts';

/**
 * Randomized editing in real Chromium. `TANDEM_EDIT_SEED` replays a seed (each run prints its
 * own), `TANDEM_EDIT_RUNS` sets how many sequences (docs/design.md, "The editor": a longer run before a
 * release).
 */
const seed = Number(process.env.TANDEM_EDIT_SEED ?? Math.floor(Math.random() * 2 ** 31));
const runs = Number(process.env.TANDEM_EDIT_RUNS ?? 24);
const start = 'Alpha paragraph.\n\nBeta **bold** and *em* text.\n\n- one\n- two\n\n## Heading';

const server = useTestServer();
const people = useBrowser(server);
let oracle: OracleEditor;

beforeAll(async () => {
  oracle = await startOracleEditor();
}, 120_000);
afterAll(async () => {
  await oracle?.close();
});

/** Waits until `read()` equals `expected()` (both may still change), then asserts it: a failure shows the difference. */
async function settlesAt(read: () => unknown, expected: () => unknown, what: string): Promise<void> {
  await expect
    .poll(() => isDeepStrictEqual(read(), expected()), { timeout: 10_000 })
    .toBe(true)
    .catch(() => undefined);
  expect(read(), what).toEqual(expected());
}

/** The text of each top-level block of ProseMirror JSON, one line each, as readText shows a document. */
function docLines(doc: unknown): string {
  const textOf = (node: any): string => (node.type === 'text' ? node.text : node.type === 'hard_break' ? '' : (node.content ?? []).map(textOf).join(''));
  return ((doc as any).content ?? []).map(textOf).join('\n');
}

async function act(page: Page, actions: readonly EditingAction[]): Promise<void> {
  await documentText(page).focus();
  for (const action of actions) await perform(page, action);
}

async function pressTimes(page: Page, key: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++) await page.keyboard.press(key);
}

describe('[EDIT3] random editing in Chromium', () => {
  it('ends as the plain y-prosemirror editor ends; undo everything gives the start, redo everything the end', async () => {
    console.log(`editing properties: seed ${seed}, ${runs} sequences (TANDEM_EDIT_SEED=${seed} replays them)`);
    await fc.assert(
      fc.asyncProperty(editingActions({ vertical: false }), async (actions) => {
        const [tandemId, oracleId] = [await server.createDoc('Tandem', start), await server.createDoc('Oracle', start)];
        const tandemPeer = server.connect(tandemId);
        const oraclePeer = server.connect(oracleId);
        await Promise.all([tandemPeer.synced, oraclePeer.synced]);
        const startText = textWithoutIds(tandemPeer.ydoc);
        const tandem = await people.openDoc(tandemId, server.token('editor', { name: 'Alice' }));
        const plain = await people.blank();
        try {
          await oracle.open(plain.page, server.wsUrl, oracleId, server.ownerToken);
          const what = describeActions(actions);
          const text = (peer: { ydoc: Y.Doc }) => () => textWithoutIds(peer.ydoc);

          await Promise.all([act(tandem.page, actions), act(plain.page, actions)]);
          await settlesAt(text(tandemPeer), text(oraclePeer), `after ${what}`);
          const endText = textWithoutIds(tandemPeer.ydoc);

          const presses = actions.length + 3;
          await Promise.all([pressTimes(tandem.page, 'Control+z', presses), pressTimes(plain.page, 'Control+z', presses)]);
          await settlesAt(text(tandemPeer), () => startText, `undo everything after ${what}`);
          await settlesAt(text(oraclePeer), () => startText, `the plain editor's undo everything after ${what}`);

          await Promise.all([pressTimes(tandem.page, 'Control+Shift+Z', presses), pressTimes(plain.page, 'Control+Shift+Z', presses)]);
          await settlesAt(text(tandemPeer), () => endText, `redo everything after ${what}`);
          await settlesAt(text(oraclePeer), () => endText, `the plain editor's redo everything after ${what}`);
        } finally {
          await tandem.context.close();
          await plain.context.close();
          tandemPeer.destroy();
          oraclePeer.destroy();
        }
      }),
      { seed, numRuns: runs, endOnFailure: true },
    );
  }, 600_000);

  it('converges when two people edit and undo at once', async () => {
    await fc.assert(
      fc.asyncProperty(editingActions({ maxLength: 10 }), editingActions({ maxLength: 10 }), async (alicesActions, bobsActions) => {
        const id = await server.createDoc('Together', start);
        const peer = server.connect(id);
        await peer.synced;
        const alice = await people.openDoc(id, server.token('editor', { name: 'Alice' }));
        const bob = await people.openDoc(id, server.token('editor', { name: 'Bob' }));
        try {
          const what = `Alice: ${describeActions(alicesActions)}; Bob: ${describeActions(bobsActions)}`;
          await Promise.all([act(alice.page, alicesActions), act(bob.page, bobsActions)]);
          await Promise.all([
            pressTimes(alice.page, 'Control+z', alicesActions.length + 3),
            pressTimes(bob.page, 'Control+z', bobsActions.length + 3),
          ]);
          // Both show the same text, and it is the server's (its blocks' text, line by line).
          const serverLines = () => docLines(textWithoutIds(peer.ydoc));
          await expect.poll(async () => [await readText(alice.page), await readText(bob.page)], { timeout: 15_000, message: what }).toEqual([
            serverLines(),
            serverLines(),
          ]);
        } finally {
          await alice.context.close();
          await bob.context.close();
          peer.destroy();
        }
      }),
      { seed: seed + 1, numRuns: Math.max(2, Math.round(runs / 4)), endOnFailure: true },
    );
  }, 600_000);
});
