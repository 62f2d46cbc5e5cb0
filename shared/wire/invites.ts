import * as v from 'valibot';

/** INV1–INV6: invites to one document and the people who joined by them. */

/** The roles an invite may give: never `agent` (agents get their tokens from `tandem token`). */
export const inviteRoles = ['editor', 'commenter', 'viewer'] as const;
export type InviteRole = (typeof inviteRoles)[number];

/** The longest name a person may give when joining. */
export const maxPersonName = 60;

/** At most this many people may join by one invite, when it has a limit. */
export const maxInviteUses = 1000;

/** `POST /api/docs/:id/invites`: a role, and optionally how long the invite admits (`7d`, `12h`, `never`) and how many. */
export const NewInvite = v.object({
  role: v.picklist(inviteRoles, '"role" must be "editor", "commenter" or "viewer".'),
  expires: v.optional(v.string('"expires" must be a count and a unit (s, m, h or d), e.g. 7d, or "never".')),
  uses: v.optional(
    v.pipe(
      v.number('"uses" must be a whole number.'),
      v.integer('"uses" must be a whole number.'),
      v.minValue(1, '"uses" must be at least 1.'),
      v.maxValue(maxInviteUses, `"uses" must be at most ${maxInviteUses}.`),
    ),
  ),
});
export type NewInvite = v.InferOutput<typeof NewInvite>;

/** The answer to `POST /api/docs/:id/invites`: `url` holds the code, which the server never shows again. */
export const CreatedInvite = v.object({ inviteId: v.string(), url: v.string() });
export type CreatedInvite = v.InferOutput<typeof CreatedInvite>;

/** One invite of `GET /api/docs/:id/invites`; times are ISO, `expiresAt` and `maxUses` null for none. */
export const InviteView = v.object({
  inviteId: v.string(),
  role: v.picklist(inviteRoles),
  createdAt: v.string(),
  expiresAt: v.nullable(v.string()),
  uses: v.number(),
  maxUses: v.nullable(v.number()),
});
export type InviteView = v.InferOutput<typeof InviteView>;

/** `POST /api/invites/:code/join`: the name the person gives, trimmed, 1 to 60 characters. */
export const JoinInvite = v.object({
  name: v.pipe(
    v.string('"name" must be text.'),
    v.trim(),
    v.minLength(1, 'Give a name to join with.'),
    v.maxLength(maxPersonName, `A name has at most ${maxPersonName} characters.`),
  ),
});
export type JoinInvite = v.InferOutput<typeof JoinInvite>;

/** The answer to a join: the person's own token (the invite's role and document, the name given). */
export const JoinedInvite = v.object({ token: v.string() });
export type JoinedInvite = v.InferOutput<typeof JoinedInvite>;

/** One person of `GET /api/docs/:id/people`: `lastSeen` is ISO (when they joined, or last connected since). */
export const PersonView = v.object({
  subject: v.string(),
  name: v.string(),
  role: v.picklist(inviteRoles),
  lastSeen: v.string(),
});
export type PersonView = v.InferOutput<typeof PersonView>;

/** The path of an invite's link: the code is in the fragment, which browsers send to no server and no `Referer`. */
export function invitePath(code: string): string {
  return `/join#${code}`;
}
