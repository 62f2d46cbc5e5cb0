import { describe, expect, it } from 'vitest';
import type * as v from 'valibot';
import { AgentApiClient } from '../../agents/agent-api-client.ts';
import { Rejection } from '../../shared/protocol/rejection.ts';
import { parseRunRecord } from '../../shared/protocol/run-record.ts';
import { AuditPage } from '../../shared/wire/audit.ts';
import { ClaimedRun, HeartbeatAnswer, OpsAnswer, QueuedRunList, RunStateAnswer } from '../../shared/wire/agent.ts';
import { CreatedDoc, CreatedId, DocList, DocView } from '../../shared/wire/docs.ts';
import { ErrorEnvelope } from '../../shared/wire/errors.ts';
import { readWire } from '../../shared/wire/parse.ts';
import { RunDecision, SentRun } from '../../shared/wire/runs.ts';
import { agentApi, createDoc, instruct, replaceOp, sentRun } from '../helpers/runs.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/*
 * The answers of a real server read with the wire schemas of shared/wire: what the server sends
 * is what the agents and the browser app are typed to read.
 */

const server = useTestServer();

const markdown = 'alpha one\n\nbeta two';

/** The value read with `schema`; fails the test with the schema's problem when it does not fit. */
function expectWire<S extends v.GenericSchema>(schema: S, value: unknown): v.InferOutput<S> {
  const read = readWire(schema, value);
  expect(read.ok ? null : read.problem).toBeNull();
  return (read as { ok: true; value: v.InferOutput<S> }).value;
}

describe('the document answers', () => {
  it('have the wire types of creating, listing and reading a document', async () => {
    const created = await server.api('/api/docs', { method: 'POST', body: { title: 'Wire', markdown } });
    expect(created.status).toBe(201);
    const doc = expectWire(CreatedDoc, created.body);
    const list = expectWire(DocList, (await server.api('/api/docs')).body);
    expect(list.map((entry) => entry.id)).toContain(doc.id);
    const view = expectWire(DocView, (await server.api(`/api/docs/${doc.id}`)).body);
    expect(view.blocks?.map((block) => block.markdown)).toEqual(['alpha one', 'beta two']);
  });

  it('have the wire types of annotating, sending, reading a run and discarding it', async () => {
    const doc = await createDoc(server, markdown);
    const annotated = await server.api(`/api/docs/${doc.id}/annotations`, {
      method: 'POST',
      body: { kind: 'instruction', blockId: doc.blocks[0].id, text: 'uppercase' },
    });
    const instructionId = expectWire(CreatedId, annotated.body).id;
    const sent = expectWire(SentRun, (await server.api(`/api/docs/${doc.id}/runs`, { method: 'POST' })).body);
    expect(sent.items.map((item) => item.instructionId)).toEqual([instructionId]);

    const bot = agentApi(server, server.token('agent'));
    expectWire(ClaimedRun, (await bot.claim(sent.runId)).body);
    expectWire(RunStateAnswer, (await bot.complete(sent.runId, { summary: 'nothing done' })).body);
    const view = expectWire(DocView, (await server.api(`/api/docs/${doc.id}`)).body);
    expect(view.runs.map((run) => parseRunRecord(run).ok)).toEqual([true]);
    const decided = await server.api(`/api/runs/${sent.runId}/discard`, { method: 'POST', body: { reason: 'try again' } });
    expect(expectWire(RunDecision, decided.body).state).toBe('discarded');
  });

  it('have the wire type of a page of the audit log', async () => {
    const doc = await createDoc(server, markdown);
    const page = expectWire(AuditPage, (await server.api(`/api/docs/${doc.id}/audit`)).body);
    expect(page.entries.map((entry) => entry.action)).toContain('doc.created');
  });

  it('refuse in the one error envelope', async () => {
    const doc = await createDoc(server, markdown);
    const refusals = await Promise.all([
      server.api('/api/docs', { method: 'POST', body: { title: 5 } }),
      server.api(`/api/docs/${doc.id}/annotations`, { method: 'POST', body: { kind: 'comment', blockId: doc.blocks[0].id, text: '' } }),
      server.api('/api/docs/nosuchdocument'),
      server.api(`/api/docs/${doc.id}/audit?limit=0`),
      server.api('/api/docs', { token: 'not-a-token' }),
    ]);
    expect(refusals.map((refusal) => expectWire(ErrorEnvelope, refusal.body).error.code)).toEqual([
      'INVALID_BODY',
      'INVALID_TEXT',
      'NOT_FOUND',
      'INVALID_QUERY',
      'UNAUTHORIZED',
    ]);
  });
});

describe('the agent answers', () => {
  it('have the wire types of listing, claiming, keeping, writing and completing a run', async () => {
    const run = await sentRun(server, markdown, ['uppercase']);
    const bot = agentApi(server, server.token('agent', { doc: run.docId }));
    const queued = expectWire(QueuedRunList, (await bot.queued()).body);
    expect(queued.map((entry) => entry.runId)).toEqual([run.runId]);
    const claimed = expectWire(ClaimedRun, (await bot.claim(run.runId)).body);
    expectWire(HeartbeatAnswer, (await bot.heartbeat(run.runId)).body);
    const op = replaceOp(claimed.document.blocks[0], 'ALPHA ONE', run.instructionIds[0]);
    expect(expectWire(OpsAnswer, (await bot.ops(run.runId, 'batch-1', [op])).body)).toEqual({ applied: 1 });
    expect(expectWire(RunStateAnswer, (await bot.complete(run.runId)).body)).toEqual({ state: 'review' });
  });

  it('are read by the agent API client, which rebuilds a refusal from the error envelope', async () => {
    const run = await sentRun(server, markdown, ['lowercase']);
    const client = new AgentApiClient(server.url, server.token('agent', { doc: run.docId }));
    expect((await client.queuedRuns()).map((entry) => entry.runId)).toEqual([run.runId]);
    const claimed = await client.claim(run.runId);
    expect((await client.document(run.docId)).blocks).toEqual(claimed.document.blocks);
    const refused = await client.claim(run.runId).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Rejection);
    expect(refused).toMatchObject({ status: 409, code: 'ALREADY_CLAIMED' });
    expect(await client.fail(run.runId, 'test over')).toEqual({ state: 'failed' });
  });

  it('refuse a refusal of an instruction the run does not have in the error envelope', async () => {
    const doc = await createDoc(server, markdown);
    await instruct(server, doc.id, doc.blocks[1].id, 'uppercase');
    const sent = (await server.api(`/api/docs/${doc.id}/runs`, { method: 'POST' })).body as SentRun;
    const bot = agentApi(server, server.token('agent', { doc: doc.id }));
    await bot.claim(sent.runId);
    const answer = await bot.complete(sent.runId, { refusals: [{ instructionId: 'nosuchinstruction', reason: 'no' }] });
    expect(answer.status).toBe(422);
    expect(expectWire(ErrorEnvelope, answer.body).error.code).toBe('INVALID_BODY');
  });
});
