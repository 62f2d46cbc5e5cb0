import type { InviteRole } from '../../shared/wire/invites.ts';

/** An invite as stored: only the hash of its code is kept (INV2). Times are milliseconds since the epoch. */
export interface InviteRecord {
  id: string;
  codeHash: string;
  docId: string;
  role: InviteRole;
  /** The subject of the editor who made it. */
  createdBy: string;
  createdAt: number;
  /** After this the invite admits nobody; null: until revoked. */
  expiresAt: number | null;
  /** How many may join by it; null: any number. */
  maxUses: number | null;
  uses: number;
  /** The `exp` (seconds) of its maker's token: a token minted by it never outlives that (INV3); null for none. */
  grantUntil: number | null;
  revokedAt: number | null;
}

/** A person who joined a document by an invite, under the one token minted for them. */
export interface PersonRecord {
  docId: string;
  subject: string;
  name: string;
  role: InviteRole;
  /** The id (`jti`) of the token they were given: what removing them revokes. */
  tokenId: string;
  inviteId: string;
  joinedAt: number;
  lastSeen: number;
}

/** What joining by a code came to. */
export type JoinOutcome = { ok: true; invite: InviteRecord } | { ok: false; reason: 'unknown' | 'ended' };

/**
 * INV1–INV6: a document's invites and the people who joined by them, on either backend
 * (sqlite-invites.ts, pg-invites.ts).
 */
export interface InviteBook {
  create(invite: Omit<InviteRecord, 'uses' | 'revokedAt'>): Promise<void>;
  /** The invite with this id, revoked or not; null when there is none. */
  get(id: string): Promise<InviteRecord | null>;
  /** The document's invites that are not revoked, newest first. */
  list(docId: string): Promise<InviteRecord[]>;
  /** Revokes an invite; false when it was revoked already or does not exist. */
  revoke(id: string, at: number): Promise<boolean>;
  /**
   * INV4: one use of the invite whose code hashes to `codeHash`, and the person it admits, in
   * one transaction: of joins racing for an invite's last use exactly one gets it. `person`
   * is recorded only when the join succeeds.
   */
  join(codeHash: string, at: number, person: (invite: InviteRecord) => Omit<PersonRecord, 'inviteId' | 'joinedAt' | 'lastSeen'>): Promise<JoinOutcome>;
  /** The document's people not removed, in the order they joined. */
  people(docId: string): Promise<PersonRecord[]>;
  /** Removes a person from the document; their record then, null when they were not there. */
  removePerson(docId: string, subject: string): Promise<PersonRecord | null>;
  /** Notes that a person connected at `at` (their `lastSeen`); nothing for someone who joined by no invite. */
  seen(docId: string, subject: string, at: number): Promise<void>;
}
