import type { Claims } from '../../shared/protocol/claims.ts';
import { coversDoc } from '../../shared/protocol/permissions.ts';
import type { AgentView } from '../../shared/wire/docs.ts';

/** How long after its last request an agent still counts as connected (RUN7). */
export const agentSeenMs = 60_000;
/** Agents kept at most; the one seen longest ago goes first. */
const maxAgents = 1000;

interface Seen {
  claims: Pick<Claims, 'sub' | 'name' | 'doc'>;
  model: string | null;
  lastSeen: number;
  /** Long polls of this agent held open now: it is connected while one is. */
  polls: number;
}

/**
 * RUN7: the agents that asked this instance for work or worked on a run lately, by token subject,
 * for `GET /api/docs/:id` (`agents`). In memory: an agent long-polls one instance at a time and
 * comes back within its poll's wait, so a list per instance is what people need to know whether
 * anyone will take a run; it is lost with a restart, as the polls are. The clock is the run
 * services' (`leaseClock` in tests).
 */
export class AgentRoster {
  private readonly seen = new Map<string, Seen>();

  constructor(private readonly now: () => number) {}

  /** Any request of an agent: it is seen now; `model` when it named one (a model agent's poll or report). */
  touch(claims: Claims, model?: string | null): void {
    const previous = this.seen.get(claims.sub);
    this.seen.delete(claims.sub);
    this.seen.set(claims.sub, {
      claims: { sub: claims.sub, name: claims.name, doc: claims.doc },
      model: model ?? previous?.model ?? null,
      lastSeen: this.now(),
      polls: previous?.polls ?? 0,
    });
    if (this.seen.size > maxAgents) this.seen.delete(this.seen.keys().next().value!);
  }

  /** A long poll begins: the agent stays listed until the returned release, and `agentSeenMs` after. */
  hold(claims: Claims, model?: string | null): () => void {
    this.touch(claims, model);
    this.seen.get(claims.sub)!.polls++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const entry = this.seen.get(claims.sub);
      if (!entry) return;
      entry.polls--;
      entry.lastSeen = this.now();
    };
  }

  /** The agents whose token covers `docId` and that were seen in the last `agentSeenMs`, most recent first. */
  list(docId: string): AgentView[] {
    const now = this.now();
    const listed: AgentView[] = [];
    for (const entry of this.seen.values()) {
      const lastSeen = entry.polls > 0 ? now : entry.lastSeen;
      if (now - lastSeen > agentSeenMs || !coversDoc(entry.claims, docId)) continue;
      listed.push({ name: entry.claims.name, model: entry.model, lastSeen: new Date(lastSeen).toISOString() });
    }
    return listed.sort((a, b) => b.lastSeen.localeCompare(a.lastSeen) || a.name.localeCompare(b.name));
  }
}
