import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { listAgents } from './api.ts';
import type { AgentView } from '../shared/wire/docs.ts';

/** How often the page asks who would take a run (RUN7): an agent counts as connected for 60 s after its last request. */
const everyMs = 5000;

/**
 * The agents the server saw lately for a document (`GET /api/docs/:id/agents`, RUN7), asked
 * when the host connects and then every few seconds while `target` names a document; `agents`
 * is null until the first answer (and after a failed one, so the page says nothing it does not
 * know). Polling rather than a pushed list: who is connected changes with every agent's poll
 * across all documents, which no document's Y.Doc should carry, and a few seconds of delay is
 * what a person deciding whether to Send needs.
 */
export class AgentWatch implements ReactiveController {
  agents: readonly AgentView[] | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private asking: string | null = null;
  private connected = false;

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly target: () => { token: string; docId: string } | null,
  ) {
    host.addController(this);
  }

  hostConnected(): void {
    this.connected = true;
    void this.ask();
  }

  hostUpdated(): void {
    const target = this.target();
    // A new document (or the first one known) is asked about at once.
    if (target && this.asking !== `${target.token}:${target.docId}` && this.connected && this.timer === null) void this.ask();
  }

  hostDisconnected(): void {
    this.connected = false;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private async ask(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const target = this.target();
    if (!this.connected || !target) return;
    const key = `${target.token}:${target.docId}`;
    if (this.asking !== key) this.agents = null;
    this.asking = key;
    try {
      const agents = await listAgents(target.token, target.docId);
      if (this.asking === key) this.agents = agents;
    } catch {
      if (this.asking === key) this.agents = null;
    }
    if (!this.connected) return;
    this.host.requestUpdate();
    this.timer = setTimeout(() => void this.ask(), everyMs);
  }
}
