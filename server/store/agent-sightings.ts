/**
 * RUN7 across instances: when each agent was last seen, shared by every instance on one
 * PostgreSQL database, so that an agent polling one instance is listed by all (SCALE6). One
 * process on SQLite keeps its roster in memory and needs none (`Store.agentSightings` is null).
 */

/** One agent as an instance last told of it. Times are the run services' clock, in ms. */
export interface AgentSighting {
  /** The agent token's subject. */
  sub: string;
  name: string;
  /** The one document the token is for, or null (all). */
  doc: string | null;
  /** The model it named, or null. */
  model: string | null;
  lastSeen: number;
  /**
   * While a long poll of the agent is held: when that poll ends at the latest (the agent counts
   * as seen until then, also when the instance holding it stops); null otherwise.
   */
  heldUntil: number | null;
}

export interface AgentSightings {
  /** Stores `sighting` over the agent's last one; a null `model` keeps the one stored. */
  record(sighting: AgentSighting): Promise<void>;
  /** The agents seen at or after `time` (or held until then), in no order. */
  since(time: number): Promise<AgentSighting[]>;
}
