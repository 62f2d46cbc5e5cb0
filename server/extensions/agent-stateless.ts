import { Rejection } from '../../shared/protocol/rejection.ts';
import type { Extension, onStatelessPayload } from '@hocuspocus/server';
import { parseAgentRequest, type AgentReply, type AgentRequest } from '../../shared/protocol/agent-messages.ts';
import type { Claims } from '../../shared/protocol/claims.ts';
import { parseDocName } from '../../shared/model/doc-layout.ts';
import { errorEnvelope } from '../../shared/wire/errors.ts';
import type { AgentService } from '../runs/agent-service.ts';

import type { AuthContext } from './auth.ts';
import { stringifyWithRaw } from '../raw-json.ts';
import { extensionPriority } from '../sync/extension-priorities.ts';

/**
 * The agent routes as Hocuspocus stateless messages (shared/PROTOCOL.md, AGENT1–AGENT4): an
 * agent that is a peer of a document may send `{type, requestId, runId, …}` on its `<id>`
 * connection (read-only as it is) and gets `{requestId, ok, result | error}` back on that
 * connection: the route's 200 body as `result` (AGENT2), or its error body (AGENT3). The same AgentService answers as for HTTP; runs of other documents are refused.
 * Payloads that are no agent request are left to whoever else listens.
 */
export class AgentStateless implements Extension {
  extensionName = 'TandemAgentStateless';
  priority = extensionPriority.agentStateless;

  constructor(
    /** Read per message: the services are built after Hocuspocus (server/late-bound.ts). */
    private readonly service: { get(): AgentService },
    private readonly onError: (error: unknown) => void,
  ) {}

  async onStateless({ payload, connection, documentName }: onStatelessPayload): Promise<void> {
    const request = parseAgentRequest(payload);
    if (request === null) return;
    const reply = (answer: AgentReply) => connection.sendStateless(stringifyWithRaw(answer));
    const { requestId } = request;
    try {
      if ('problem' in request) throw new Rejection(422, 'INVALID_BODY', request.problem);
      const target = parseDocName(documentName);
      if (target?.part !== 'text') throw new Rejection(403, 'FORBIDDEN', 'Send agent requests on the connection to the text document.');
      const { principal } = connection.context as AuthContext;
      // Requests on a document's connection are about that document's runs.
      const agent = { ...principal, doc: target.docId };
      const result = await this.answer(agent, request);
      reply({ requestId, ok: true, result });
    } catch (error) {
      if (error instanceof Rejection) {
        reply({ requestId, ok: false, error: errorEnvelope(error.code, error.message, error.details).error });
      } else {
        this.onError(error);
        reply({ requestId, ok: false, error: errorEnvelope('INTERNAL', 'Something went wrong on the server.').error });
      }
    }
  }

  private answer(agent: Claims, { type, runId, body }: AgentRequest): Promise<unknown> {
    const service = this.service.get();
    switch (type) {
      case 'claim':
        return service.claim(agent, runId);
      case 'heartbeat':
        return service.heartbeat(agent, runId);
      case 'ops':
        return service.ops(agent, runId, body);
      case 'complete':
        return service.complete(agent, runId, body);
      case 'fail':
        return service.fail(agent, runId, body);
      case 'activity':
        return service.activity(agent, runId, body);
    }
  }
}
