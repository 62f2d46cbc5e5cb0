import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import * as Y from 'yjs';
import { useTestServer } from '../helpers/use-test-server.ts';
import { connectPeer, waitFor, type Peer } from '../helpers/peer.ts';
import { awarenessFrame, awarenessUpdate, messageTypeOf, messageTypes, recordIncoming, sendRaw, statesSeenBy, syncFrame, syncTypes } from '../helpers/frames.ts';
import { isPresenceColor, maxPresenceStateBytes } from '../../shared/protocol/presence.ts';

const server = useTestServer({ limits: { socketMessages: { burst: 1e6, perSecond: 1e6 } } });

let errors: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  errors = vi.spyOn(console, 'error');
});
afterEach(() => {
  errors.mockRestore();
});

async function joined(docId: string, role: 'editor' | 'commenter' | 'viewer', name: string, user: Record<string, unknown>, observer?: Peer) {
  const peer = server.track(connectPeer({ wsUrl: server.wsUrl, name: docId, token: server.token(role, { name }) }));
  await peer.synced;
  peer.provider.setAwarenessField('user', user);
  if (observer) await waitFor(() => statesSeenBy(observer).has(peer.ydoc.clientID));
  return peer;
}

/** Arbitrary awareness payloads: random bytes, or well-formed updates with hostile entries. */
function hostileUpdates(ids: number[]): fc.Arbitrary<Uint8Array> {
  const hexColor = fc.stringMatching(/^#[0-9a-fA-F]{6}$/);
  const color = fc.oneof(hexColor, fc.constant('red;position:fixed;inset:0;z-index:9999'), fc.constant('url(javascript:alert(1))'), fc.string());
  const user = fc.record(
    {
      name: fc.oneof(fc.string(), fc.constant('<img src=x onerror=alert(1)>'), fc.constant('Owner')),
      role: fc.oneof(fc.constantFrom('editor', 'agent', 'viewer', 'commenter', 'admin'), fc.anything()),
      color,
      status: fc.oneof(fc.string(), fc.string({ minLength: 300, maxLength: 600 })),
    },
    { requiredKeys: [] },
  );
  const state = fc.oneof(
    fc.record({ user, cursor: fc.oneof(fc.jsonValue(), fc.record({ anchor: fc.object(), head: fc.object() })), extra: fc.jsonValue() }, { requiredKeys: [] }),
    fc.jsonValue(),
  );
  const entry = fc.record({
    clientId: fc.oneof(fc.constantFrom(...ids), fc.nat()),
    clock: fc.oneof(fc.nat({ max: 10 }), fc.nat()),
    state,
  });
  return fc.oneof(fc.uint8Array({ maxLength: 200 }), fc.array(entry, { maxLength: 8 }).map(awarenessUpdate));
}

describe('hostile awareness messages', () => {
  it('[PRES5] never break the server nor change what an honest peer sees, beyond the sender’s own sanitized entry', async () => {
    const docId = await server.createDoc('Fuzz', 'Some text.');
    const observer = await joined(docId, 'viewer', 'Watcher', { name: 'Watcher', color: '#111111' });
    const honest = await joined(docId, 'editor', 'Honest', { name: 'Honest', color: '#123456' }, observer);
    const attacker = await joined(docId, 'commenter', 'Attacker', { name: 'Attacker', color: '#654321' }, observer);
    const attackerReplies = recordIncoming(attacker);
    const honestView = () => statesSeenBy(observer).get(honest.ydoc.clientID);
    let barriers = 0;
    let sent = 0;

    /** The server has handled the attacker's frames, and the observer has every broadcast since. */
    async function barrier() {
      const seen = attackerReplies.length;
      sendRaw(attacker, syncFrame(docId, syncTypes.step1, Y.encodeStateVector(attacker.ydoc)));
      await waitFor(() => attackerReplies.slice(seen).some((frame) => messageTypeOf(frame) === messageTypes.sync));
      barriers += 1;
      honest.provider.setAwarenessField('user', { name: 'Honest', color: '#123456', status: `barrier ${barriers}` });
      await waitFor(() => honestView()?.user?.status === `barrier ${barriers}`);
    }

    const ids = [observer.ydoc.clientID, honest.ydoc.clientID, attacker.ydoc.clientID];
    await fc.assert(
      fc.asyncProperty(fc.array(hostileUpdates(ids), { minLength: 25, maxLength: 40 }), async (updates) => {
        for (const update of updates) sendRaw(attacker, awarenessFrame(docId, update));
        sent += updates.length;
        await barrier();

        const states = statesSeenBy(observer);
        expect([...states.keys()].every((id) => ids.includes(id))).toBe(true);
        expect(honestView()).toEqual({ user: { name: 'Honest', role: 'editor', color: '#123456', status: `barrier ${barriers}` } });
        const own = states.get(attacker.ydoc.clientID);
        if (own) {
          expect(Object.keys(own).every((key) => key === 'user' || key === 'cursor')).toBe(true);
          expect(own.user.name).toBe('Attacker');
          expect(own.user.role).toBe('commenter');
          expect(own.user.color === undefined || isPresenceColor(own.user.color)).toBe(true);
          expect(new TextEncoder().encode(JSON.stringify(own)).length).toBeLessThanOrEqual(maxPresenceStateBytes);
        }
      }),
      // 400 batches of 25 to 40 messages: at least 10,000 hostile messages, with a check after each batch.
      { numRuns: 400 },
    );
    expect(sent).toBeGreaterThanOrEqual(10_000);

    expect(errors).not.toHaveBeenCalled();
    const late = server.track(connectPeer({ wsUrl: server.wsUrl, name: docId, token: server.token('viewer') }));
    await late.synced;
  }, 120_000);
});
