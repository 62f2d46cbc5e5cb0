import type { InviteRole, InviteView, NewInvite } from '../shared/wire/invites.ts';

/** The words and choices of the `Share` dialog (client/tandem-share-dialog.ts), apart from its element. */

export const roleChoices: { role: InviteRole; label: string; can: string }[] = [
  { role: 'editor', label: 'Editor', can: 'can change the text, comment and send instructions' },
  { role: 'commenter', label: 'Commenter', can: 'can comment, but not change the text' },
  { role: 'viewer', label: 'Viewer', can: 'can read only' },
];

/** How long a new link admits people: the value `expires` of `POST /api/docs/:id/invites`. */
export const expiryChoices: { expires: string; label: string }[] = [
  { expires: 'never', label: 'Never' },
  { expires: '1d', label: 'In 1 day' },
  { expires: '7d', label: 'In 7 days' },
  { expires: '30d', label: 'In 30 days' },
];

/** The body of a new invite from the dialog's fields: an empty `uses` is no limit. */
export function newInviteOf(fields: { role: string; expires: string; uses: string }): NewInvite | string {
  const choice = roleChoices.find((each) => each.role === fields.role);
  if (!choice) return 'Choose a role for the link.';
  const uses = fields.uses.trim();
  if (uses !== '' && !/^[1-9]\d{0,3}$/.test(uses)) return 'Uses must be a whole number from 1, or empty for any number.';
  return { role: choice.role, expires: fields.expires, ...(uses === '' ? {} : { uses: Number(uses) }) };
}

/** One line of the links list, e.g. `Commenter link · 1 of 5 uses · until 12/3/2026`. */
export function describeInvite(invite: InviteView): string {
  const label = roleChoices.find((each) => each.role === invite.role)?.label ?? invite.role;
  const uses = invite.maxUses === null ? `${invite.uses} ${invite.uses === 1 ? 'use' : 'uses'}` : `${invite.uses} of ${invite.maxUses} uses`;
  const until = invite.expiresAt === null ? 'no expiry' : `until ${new Date(invite.expiresAt).toLocaleString()}`;
  return `${label} link · ${uses} · ${until}`;
}
