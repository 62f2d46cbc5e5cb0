import type { Claims } from '../../shared/protocol/claims.ts';
import { coversDoc } from '../../shared/protocol/permissions.ts';
import type { AgentView } from '../../shared/wire/docs.ts';
import { evictOldest } from '../evict-oldest.ts';
import type { AgentSighting, AgentSightings } from '../store/agent-sightings.ts';

/** How long after its last request an agent still counts as connected (RUN7). */
export const agentSeenMs = 60_000;
/** Agents kept at most; the one seen longest ago goes first. */
const maxAgents = 1000;
/**
 * How often an agent that keeps asking is written to the shared sightings at most, besides the
 * start and end of each long poll and a new model: the other instances see it at most this much
 * older than it is, which the 60 s window absorbs.
 */
export const shareEveryMs = 10_000;

interface Seen {
  claims: Pick<Claims, 'sub' | 'name' | 'doc'>;
  model: string | null;
  lastSeen: number;
  /** Long polls of this agent held open now: it is connected while one is. */
  polls: number;
}

/** What this instance last wrote of an agent to the shared sightings. */
interface Shared {
  at: number;
  model: string | null;
  /** The bound of the polls held here, or null when none is. */
  heldUntil: number | null;
}

/**
 * RUN7: the agents that asked for work or worked on a run lately, by token subject, for `GET
 * /api/docs/:id` (`agents`). Each instance keeps the agents that asked it in memory, exactly
 * (a long poll held here counts as now); with a store shared by several instances (SCALE6) it
 * also writes them to the store's sightings and lists those the others wrote, so an agent that
 * polls one instance shows on every one. A poll held on another instance counts as now until
 * the poll's end at the latest. The clock is the run services' (`leaseClock` in tests); a failed
 * write of a sighting is logged, and the agent's request goes on.
 */
export class AgentRoster {
  private readonly seen = new Map<string, Seen>();
  private readonly shared = new Map<string, Shared>();

  constructor(
    private readonly now: () => number,
    private readonly sightings: AgentSightings | null = null,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  /** Any request of an agent: it is seen now; `model` when it named one (a model agent's poll or report). */
  touch(claims: Claims, model?: string | null): Promise<void> {
    this.note(claims, model);
    return this.share(claims.sub, { kind: 'seen' });
  }

  /**
   * A long poll of at most `waitMs` begins: the agent stays listed until the returned release,
   * and `agentSeenMs` after. Resolves once the other instances can see it.
   */
  async hold(claims: Claims, model: string | null | undefined, waitMs: number): Promise<() => Promise<void>> {
    this.note(claims, model).polls++;
    await this.share(claims.sub, { kind: 'held', until: this.now() + waitMs });
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      const entry = this.seen.get(claims.sub);
      if (!entry) return;
      entry.polls--;
      entry.lastSeen = this.now();
      if (entry.polls === 0) await this.share(claims.sub, { kind: 'released' });
    };
  }

  /** The agents whose token covers `docId` and that were seen in the last `agentSeenMs`, most recent first. */
  async list(docId: string): Promise<AgentView[]> {
    const now = this.now();
    const latest = new Map<string, { name: string; doc: string | undefined; model: string | null; lastSeen: number }>();
    for (const sighting of await this.othersSightings(now)) {
      const lastSeen = Math.max(sighting.lastSeen, Math.min(now, sighting.heldUntil ?? 0));
      latest.set(sighting.sub, { name: sighting.name, doc: sighting.doc ?? undefined, model: sighting.model, lastSeen });
    }
    for (const entry of this.seen.values()) {
      const lastSeen = entry.polls > 0 ? now : entry.lastSeen;
      const other = latest.get(entry.claims.sub);
      if (other && other.lastSeen > lastSeen) continue;
      latest.set(entry.claims.sub, { name: entry.claims.name, doc: entry.claims.doc, model: entry.model ?? other?.model ?? null, lastSeen });
    }
    const listed: AgentView[] = [];
    for (const agent of latest.values()) {
      if (now - agent.lastSeen > agentSeenMs || !coversDoc({ doc: agent.doc }, docId)) continue;
      listed.push({ name: agent.name, model: agent.model, lastSeen: new Date(agent.lastSeen).toISOString() });
    }
    return listed.sort((a, b) => b.lastSeen.localeCompare(a.lastSeen) || a.name.localeCompare(b.name));
  }

  /** The agent is seen now, here. */
  private note(claims: Claims, model: string | null | undefined): Seen {
    const previous = this.seen.get(claims.sub);
    this.seen.delete(claims.sub);
    const entry: Seen = {
      claims: { sub: claims.sub, name: claims.name, doc: claims.doc },
      model: model ?? previous?.model ?? null,
      lastSeen: this.now(),
      polls: previous?.polls ?? 0,
    };
    this.seen.set(claims.sub, entry);
    evictOldest(this.seen, maxAgents);
    return entry;
  }

  /**
   * Writes the agent's sighting when the others' view of it is out of date: a poll began here
   * (held until its end at the latest) or the last one here ended, a new model, or, while no
   * poll is held here, nothing written for `shareEveryMs`.
   */
  private async share(sub: string, change: { kind: 'seen' } | { kind: 'held'; until: number } | { kind: 'released' }): Promise<void> {
    const entry = this.seen.get(sub);
    if (!this.sightings || !entry) return;
    const now = this.now();
    const last = this.shared.get(sub);
    let heldUntil: number | null;
    if (change.kind === 'held') heldUntil = Math.max(change.until, last?.heldUntil ?? 0);
    else if (change.kind === 'released') heldUntil = null;
    else {
      heldUntil = last?.heldUntil ?? null;
      const fresh = heldUntil !== null || now - (last?.at ?? -Infinity) < shareEveryMs;
      if (last && last.model === entry.model && fresh) return;
    }
    this.shared.set(sub, { at: now, model: entry.model, heldUntil });
    evictOldest(this.shared, maxAgents);
    const sighting: AgentSighting = { sub, name: entry.claims.name, doc: entry.claims.doc ?? null, model: entry.model, lastSeen: now, heldUntil };
    await this.sightings.record(sighting).catch(this.onError);
  }

  private async othersSightings(now: number): Promise<AgentSighting[]> {
    if (!this.sightings) return [];
    try {
      return await this.sightings.since(now - agentSeenMs);
    } catch (error) {
      this.onError(error);
      return [];
    }
  }
}
