import * as v from 'valibot';
import { request } from './api.ts';
import { CreatedInvite, InviteView, JoinedInvite, PersonView, type NewInvite } from '../shared/wire/invites.ts';

/** The API of invites and people (INV1–INV6), as the `Share` dialog and the join page use it. */

const docPath = (docId: string) => `/api/docs/${encodeURIComponent(docId)}`;

export function createInvite(token: string, docId: string, invite: NewInvite): Promise<CreatedInvite> {
  return request(CreatedInvite, token, 'POST', `${docPath(docId)}/invites`, invite);
}

export function listInvites(token: string, docId: string): Promise<InviteView[]> {
  return request(v.array(InviteView), token, 'GET', `${docPath(docId)}/invites`);
}

export function revokeInvite(token: string, inviteId: string): Promise<unknown> {
  return request(v.unknown(), token, 'DELETE', `/api/invites/${encodeURIComponent(inviteId)}`);
}

export function listPeople(token: string, docId: string): Promise<PersonView[]> {
  return request(v.array(PersonView), token, 'GET', `${docPath(docId)}/people`);
}

export function removePerson(token: string, docId: string, subject: string): Promise<unknown> {
  return request(v.unknown(), token, 'DELETE', `${docPath(docId)}/people/${encodeURIComponent(subject)}`);
}

/** Joins by an invite's code with no token of one's own; the personal token it mints. */
export function joinInvite(code: string, name: string): Promise<JoinedInvite> {
  return request(JoinedInvite, null, 'POST', `/api/invites/${encodeURIComponent(code)}/join`, { name });
}
