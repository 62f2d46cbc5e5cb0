/**
 * Who wrote the items of each text document, by Yjs client id (WHO1): a person (the subject and
 * name of the token whose connection first sent items of that client id) or an agent's batch
 * (the run and instruction the server wrote them for). SQLite (sqlite-authorship.ts) and
 * PostgreSQL (pg-authorship.ts) implement it; a document's rows go when the trash purges it.
 */

/**
 * The writer of one client id, as stored: a person, an agent's instruction, or the server
 * bringing text back (an undo), whose items are copies of the items `ranges` names.
 */
export type ClientAuthor =
  | { kind: 'person'; name: string }
  | { kind: 'agent'; name: string; runId: string; instructionId: string; acceptedBy?: string }
  | { kind: 'restored'; ranges: RestoredRange[] };

/** Items `clock`…`clock + length - 1` of a restoring client id copy those from `fromClock` of `fromClient`. */
export interface RestoredRange {
  clock: number;
  length: number;
  fromClient: number;
  fromClock: number;
}

/** One claim: `client` writes as `subject` (a token's `sub`, or `agentSubject(runId)` for a server-side write). */
export interface ClientClaim {
  client: number;
  subject: string;
  author: ClientAuthor;
}

export interface AuthorshipBook {
  /**
   * WHO2: records each claim whose client id has no owner in `docId` yet (the first claim wins,
   * also across instances: the database decides), and resolves the subject that owns each
   * claimed client id afterwards, the claimant's or an earlier one's.
   */
  claim(docId: string, claims: readonly ClientClaim[]): Promise<Map<number, string>>;
  /** WHO3: records that `name` accepted the changes of `instructionIds` of run `runId` (on the agent's client ids of those instructions). */
  accepted(docId: string, runId: string, instructionIds: readonly string[], name: string): Promise<void>;
  /** Every client id of `docId` with its owner. */
  authors(docId: string): Promise<Map<number, { subject: string; author: ClientAuthor }>>;
}

/** The subject the server's writes for run `runId` are owned by; no token is ever issued for it. */
export function agentSubject(runId: string): string {
  return `run:${runId}`;
}
