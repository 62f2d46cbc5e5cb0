import type pg from 'pg';
import type { AgentSighting, AgentSightings } from './agent-sightings.ts';

interface SightingRow {
  sub: string;
  name: string;
  doc: string | null;
  model: string | null;
  last_seen: string | number;
  held_until: string | number | null;
}

/**
 * The agents' sightings in the `agent_sightings` table, one row per agent subject. Concurrent
 * writes of two instances keep the later time seen (`GREATEST`); the row of an agent never seen
 * again stays (one small row per agent token).
 */
export function pgAgentSightings(pool: pg.Pool): AgentSightings {
  return {
    async record(sighting) {
      await pool.query(
        `INSERT INTO agent_sightings (sub, name, doc, model, last_seen, held_until) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (sub) DO UPDATE SET name = excluded.name, doc = excluded.doc,
           model = COALESCE(excluded.model, agent_sightings.model),
           last_seen = GREATEST(agent_sightings.last_seen, excluded.last_seen), held_until = excluded.held_until`,
        [sighting.sub, sighting.name, sighting.doc, sighting.model, sighting.lastSeen, sighting.heldUntil],
      );
    },
    async since(time) {
      const { rows } = await pool.query<SightingRow>('SELECT * FROM agent_sightings WHERE last_seen >= $1 OR held_until >= $1', [time]);
      return rows.map(toSighting);
    },
  };
}

function toSighting(row: SightingRow): AgentSighting {
  return {
    sub: row.sub,
    name: row.name,
    doc: row.doc,
    model: row.model,
    lastSeen: Number(row.last_seen),
    heldUntil: row.held_until === null ? null : Number(row.held_until),
  };
}
