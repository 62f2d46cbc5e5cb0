import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/use-test-server.ts';
import { connectPeer, waitFor, type Peer } from '../helpers/peer.ts';
import { awarenessFrame, awarenessUpdate, sendRaw, statesSeenBy } from '../helpers/frames.ts';

const server = useTestServer();

/** A peer of `role` on a new document, with its `user` published and seen by `observer`. */
async function joined(docId: string, role: 'editor' | 'commenter' | 'viewer', user: Record<string, unknown>, observer?: Peer) {
  const peer = server.track(connectPeer({ wsUrl: server.wsUrl, name: docId, token: server.token(role, { name: `${role} person` }) }));
  await peer.synced;
  peer.provider.setAwarenessField('user', user);
  if (observer) await waitFor(() => statesSeenBy(observer).has(peer.ydoc.clientID));
  return peer;
}

/**
 * Publishes a fresh `marker` from `peer` and waits until `observer` sees it: every message the
 * peer sent before is then handled, since one connection's messages are handled in order.
 */
async function barrier(peer: Peer, observer: Peer, marker: string, rest: Record<string, unknown> = {}) {
  peer.provider.awareness!.setLocalState({ ...rest, user: { name: 'x', color: '#00aa00', status: marker } });
  await waitFor(() => statesSeenBy(observer).get(peer.ydoc.clientID)?.user?.status === marker);
}

describe('presence is the server’s word', () => {
  it('[PRES1] shows the token’s name and role whatever name and role a peer claims', async () => {
    const docId = await server.createDoc('Pose');
    const observer = await joined(docId, 'viewer', { name: 'Watcher', color: '#111111', role: 'viewer' });
    const poser = await joined(docId, 'commenter', { name: 'Owner', role: 'editor', color: '#222222' }, observer);

    expect(statesSeenBy(observer).get(poser.ydoc.clientID)?.user).toEqual({ name: 'commenter person', role: 'commenter', color: '#222222' });
  });

  it('[PRES2] keeps a peer from overwriting another client’s awareness entry', async () => {
    const docId = await server.createDoc('Overwrite');
    const observer = await joined(docId, 'viewer', { name: 'Watcher', color: '#111111' });
    const victim = await joined(docId, 'editor', { name: 'Victim', color: '#333333' }, observer);
    const attacker = await joined(docId, 'editor', { name: 'Attacker', color: '#444444' }, observer);
    const victimBefore = statesSeenBy(observer).get(victim.ydoc.clientID);

    const forged = { clientId: victim.ydoc.clientID, clock: 1_000_000, state: { user: { name: 'Give me your token', role: 'editor', color: '#ff0000' } } };
    sendRaw(attacker, awarenessFrame(docId, awarenessUpdate([forged])));
    await barrier(attacker, observer, 'after the forgery');

    expect(statesSeenBy(observer).get(victim.ydoc.clientID)).toEqual(victimBefore);
    expect(statesSeenBy(observer).get(victim.ydoc.clientID)?.user.name).toBe('editor person');
  });

  it('[PRES2] adds no one for an update that carries 5,000 made-up peers', async () => {
    const docId = await server.createDoc('Crowd');
    const observer = await joined(docId, 'viewer', { name: 'Watcher', color: '#111111' });
    const attacker = await joined(docId, 'editor', { name: 'Attacker', color: '#444444' }, observer);

    const crowd = Array.from({ length: 5000 }, (_, i) => ({ clientId: 10_000_000 + i, clock: 1, state: { user: { name: `ghost ${i}`, color: '#555555' } } }));
    sendRaw(attacker, awarenessFrame(docId, awarenessUpdate(crowd)));
    await barrier(attacker, observer, 'after the crowd');

    expect([...statesSeenBy(observer).keys()].sort()).toEqual([observer.ydoc.clientID, attacker.ydoc.clientID].sort());
  });

  it('[PRES3] drops a cursor colour that is not #rrggbb, such as a CSS injection', async () => {
    const docId = await server.createDoc('Colour');
    const observer = await joined(docId, 'viewer', { name: 'Watcher', color: '#111111' });
    const attacker = await joined(docId, 'editor', { name: 'Attacker', color: 'red;position:fixed;inset:0;z-index:9' }, observer);

    expect(statesSeenBy(observer).get(attacker.ydoc.clientID)?.user).toEqual({ name: 'editor person', role: 'editor' });
  });

  it('[PRES3] forwards only user and cursor, and a state too large for that not at all', async () => {
    const docId = await server.createDoc('Size');
    const observer = await joined(docId, 'viewer', { name: 'Watcher', color: '#111111' });
    const attacker = await joined(docId, 'editor', { name: 'Attacker', color: '#444444' }, observer);
    await barrier(attacker, observer, 'with junk', { junk: 'j'.repeat(100) });

    expect(Object.keys(statesSeenBy(observer).get(attacker.ydoc.clientID)!)).toEqual(['user']);

    const statuses: unknown[] = [];
    observer.provider.awareness!.on('change', () => statuses.push(statesSeenBy(observer).get(attacker.ydoc.clientID)?.user?.status));
    attacker.provider.awareness!.setLocalState({ user: { name: 'x', status: 'too big' }, cursor: { anchor: { big: 'c'.repeat(5000) }, head: {} } });
    await barrier(attacker, observer, 'small again');
    expect(statuses).not.toContain('too big');
  });

  it('[PRES2] removes a peer’s entry when it leaves, and keeps the others', async () => {
    const docId = await server.createDoc('Leave');
    const observer = await joined(docId, 'viewer', { name: 'Watcher', color: '#111111' });
    const stayer = await joined(docId, 'editor', { name: 'Stayer', color: '#333333' }, observer);
    const leaver = await joined(docId, 'editor', { name: 'Leaver', color: '#444444' }, observer);

    leaver.destroy();

    await waitFor(() => !statesSeenBy(observer).has(leaver.ydoc.clientID));
    expect(statesSeenBy(observer).has(stayer.ydoc.clientID)).toBe(true);
  });
});
