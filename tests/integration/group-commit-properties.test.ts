import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hocuspocus } from '@hocuspocus/server';
import fc from 'fast-check';
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import { describe, expect, it, vi } from 'vitest';
import * as Y from 'yjs';
import { Persistence } from '../../server/sync/persistence.ts';
import { Outbox } from '../../server/sync/outbox.ts';
import { closeHocuspocus } from '../../server/shutdown.ts';
import { openSqliteStore } from '../../server/store/sqlite-store.ts';
import { openOnDiskReader } from '../helpers/sqlite-on-disk.ts';
import type { InlineUpdateLog } from '../../server/store/update-log.ts';

/** Hocuspocus message types and y-protocols sync sub-types this test writes and reads. */
const messageSync = 0;
const messageAuth = 2;
const messageSyncStatus = 8;
const syncUpdate = 2;
const authToken = 0;

const docNames = ['alpha', 'beta'];

function frame(documentName: string, write: (encoder: encoding.Encoder) => void): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarString(encoder, documentName);
  write(encoder);
  return encoding.toUint8Array(encoder);
}

/** One client socket: a real Hocuspocus connection whose frames land in `onFrame` through an Outbox. */
interface Client {
  /** Per document: the text of each update sent, in order, and how many were acknowledged. */
  sent: Map<string, string[]>;
  acked: Map<string, number>;
  closed: boolean;
  ydocs: Map<string, Y.Doc>;
  send(documentName: string, update: Uint8Array): void;
}

type Action = { kind: 'type'; client: number; doc: number; text: string } | { kind: 'server'; doc: number; text: string };
const actionArb: fc.Arbitrary<Action> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('type' as const), client: fc.nat(2), doc: fc.nat(1), text: fc.stringMatching(/^[a-z]{1,3}$/) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('server' as const), doc: fc.nat(1), text: fc.stringMatching(/^[A-Z]{1,3}$/) }) },
);
const turnArb = fc.record({ diskFull: fc.integer({ min: 0, max: 5 }).map((n) => n === 0), actions: fc.array(actionArb, { maxLength: 8 }) });

describe('group commit, properties (DUR1, DUR2)', () => {
  it('[DUR1] never sends an acknowledgement before its update is on disk, whatever the turns and failed commits', async () => {
    const reported = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(turnArb, { minLength: 1, maxLength: 8 }), async (turns) => {
          const dataDir = mkdtempSync(join(tmpdir(), 'tandem-group-prop-'));
          const store = openSqliteStore(dataDir);
          const reader = openOnDiskReader(dataDir);
          const onDisk = (name: string) => reader.docOf(name).getText('t').toString();
          let diskFull = false;
          const refuse = () => {
            if (diskFull) throw new Error('database or disk is full');
          };
          const log: InlineUpdateLog = {
            ...store.updates,
            inline: {
              append: (name, update) => (refuse(), store.updates.inline.append(name, update)),
              appendAll: (entries) => (refuse(), store.updates.inline.appendAll(entries)),
            },
            compact: async (name, state, throughSeq) => (refuse(), store.updates.compact(name, state, throughSeq)),
          };
          const limits = { updates: Number.MAX_SAFE_INTEGER, bytes: Number.MAX_SAFE_INTEGER };
          const hocuspocus = new Hocuspocus({ quiet: true, extensions: [new Persistence({ log, onError: () => {}, limits })] });
          const violations: string[] = [];
          const clients: Client[] = [];
          try {
            for (let index = 0; index < 3; index++) {
              const client: Client = { sent: new Map(), acked: new Map(), closed: false, ydocs: new Map(), send: () => {} };
              const socket = {
                readyState: 1,
                send(data: unknown) {
                  const decoder = decoding.createDecoder(data as Uint8Array);
                  const name = decoding.readVarString(decoder);
                  if (decoding.readVarUint(decoder) !== messageSyncStatus || decoding.readVarUint(decoder) !== 1) return;
                  const acked = (client.acked.get(name) ?? 0) + 1;
                  client.acked.set(name, acked);
                  // The acknowledged update is the `acked`-th this client sent to `name`: it must be on disk now.
                  const text = client.sent.get(name)?.[acked - 1];
                  if (text === undefined) violations.push(`client ${index}: acknowledgement ${acked} of ${name} for nothing sent`);
                  else if (!onDisk(name).includes(text)) violations.push(`client ${index}: "${text}" of ${name} acknowledged before it was on disk`);
                },
                close() {
                  this.readyState = 3;
                  client.closed = true;
                },
              };
              const connection = hocuspocus.handleConnection(new Outbox(socket), new Request('http://localhost/collab'), {});
              client.send = (name, update) => connection.handleMessage(frame(name, (e) => (encoding.writeVarUint(e, messageSync), encoding.writeVarUint(e, syncUpdate), encoding.writeVarUint8Array(e, update))));
              for (const name of docNames) {
                connection.handleMessage(frame(name, (e) => (encoding.writeVarUint(e, messageAuth), encoding.writeVarUint(e, authToken), encoding.writeVarString(e, 'any'))));
                const ydoc = new Y.Doc();
                ydoc.on('update', (update: Uint8Array) => client.send(name, update));
                client.ydocs.set(name, ydoc);
              }
              clients.push(client);
            }
            // Every connection authenticated and its documents loaded.
            while (docNames.some((name) => hocuspocus.documents.get(name)?.getConnectionsCount() !== 3)) await new Promise((resolve) => setTimeout(resolve, 1));

            for (const turn of turns) {
              diskFull = turn.diskFull;
              for (const action of turn.actions) {
                const name = docNames[action.doc];
                if (action.kind === 'server') {
                  const document = hocuspocus.documents.get(name)!;
                  let threw = false;
                  try {
                    document.transact(() => document.getText('t').insert(0, action.text), { source: 'local' });
                  } catch {
                    threw = true;
                  }
                  // DUR2: a server-side write that returns is on disk; one that cannot be stored throws.
                  if (diskFull && !threw) violations.push(`server write "${action.text}" of ${name} returned while the disk was full`);
                  if (!threw && !onDisk(name).includes(action.text)) violations.push(`server write "${action.text}" of ${name} not on disk when transact returned`);
                  continue;
                }
                const client = clients[action.client];
                if (client.closed) continue;
                const text = `${action.text}${action.client}.${client.sent.get(name)?.length ?? 0};`;
                client.sent.set(name, [...(client.sent.get(name) ?? []), text]);
                client.ydocs.get(name)!.getText('t').insert(0, text);
              }
              // The end of the turn: the group commit runs, then what it released is sent.
              await new Promise((resolve) => setImmediate(resolve));
              await new Promise((resolve) => setImmediate(resolve));
            }
            diskFull = false;
          } finally {
            for (const client of clients) for (const ydoc of client.ydocs.values()) ydoc.destroy();
            await closeHocuspocus(hocuspocus);
            reader.close();
            await store.close();
            rmSync(dataDir, { recursive: true, force: true });
          }
          expect(violations).toEqual([]);
        }),
        { numRuns: 15 },
      );
    } finally {
      reported.mockRestore();
    }
  }, 120_000);
});
