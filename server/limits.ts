/**
 * How much one client may ask of the server (LIMIT rules in PROTOCOL.md). The defaults are
 * generous for people, browsers and agents; `startServer({limits})` raises or lowers any of
 * them (the benchmarks open hundreds of connections with one token).
 */
export interface Limits {
  /** Largest WebSocket message, in bytes; a larger one closes the socket with 1009. */
  maxMessageBytes: number;
  /** WebSockets open at once from one IP address; more are refused at the upgrade (429). */
  socketsPerIp: number;
  /** WebSockets authenticated at once as one token subject; more are denied at authentication. */
  socketsPerSubject: number;
  /** Documents a socket may open before any of them is authenticated; more close the socket. */
  pendingDocumentsPerSocket: number;
  /** Messages per WebSocket: a burst, then a rate per second; beyond it the socket is closed (1008). */
  socketMessages: Rate;
  /** `/api/` requests per token subject; beyond it 429 `RATE_LIMITED` with `Retry-After`. */
  httpRequests: Rate;
  /** `POST /api/docs` per token subject, on top of `httpRequests`. */
  docCreations: Rate;
  /** `GET /api/agent/runs?wait=` and `GET /api/agent/runs/:runId/asides?wait=` long polls waiting at once per token subject. */
  longPollsPerSubject: number;
  /** `POST /api/runs/:runId/asides` per token subject, on top of `httpRequests` (LIMIT7). */
  asides: Rate;
  /** `POST /api/invites/:code/join` per IP address (INV5): guessing codes costs time. */
  inviteJoins: Rate;
  /**
   * A WebSocket that sends nothing for this long is closed (Hocuspocus's timeout); `/yjs` sockets
   * are pinged every third of it, and a pong counts as a message (YWS6).
   */
  idleSocketMs: number;
  /**
   * The longest a task of the work pool may run (LIMIT10: reading, parsing and writing what a
   * client sent, server/work/work-pool.ts); past it the task is stopped and its request refused
   * with 422 `TOO_COMPLEX`. `TANDEM_WORK_TASK_MS` in the environment. The pool is the process's,
   * so the last server started in a process sets it for all of them.
   */
  workTaskMs: number;
}

/** A token bucket: `burst` at once, refilled at `perSecond`. */
export interface Rate {
  burst: number;
  perSecond: number;
}

export const defaultLimits: Limits = {
  maxMessageBytes: 8 * 1024 * 1024,
  socketsPerIp: 256,
  socketsPerSubject: 32,
  pendingDocumentsPerSocket: 8,
  socketMessages: { burst: 2000, perSecond: 200 },
  httpRequests: { burst: 600, perSecond: 60 },
  docCreations: { burst: 60, perSecond: 1 },
  longPollsPerSubject: 4,
  asides: { burst: 10, perSecond: 0.2 },
  inviteJoins: { burst: 10, perSecond: 0.1 },
  idleSocketMs: 60_000,
  workTaskMs: 20_000,
};

/** `defaultLimits` with `given` on top (rates replaced whole). */
export function resolveLimits(given: Partial<Limits> = {}): Limits {
  return { ...defaultLimits, ...given };
}
