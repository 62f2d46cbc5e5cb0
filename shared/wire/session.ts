import * as v from 'valibot';
import { roles } from '../protocol/claims.ts';

/**
 * `GET /api/session`: who the request's token signs in, as the server verified it (TOKEN6). The
 * app asks it before offering to switch to the token of a link (client/tandem-switch-prompt.ts).
 */
export const SessionView = v.object({
  id: v.string(),
  name: v.string(),
  role: v.picklist(roles),
  doc: v.nullable(v.string()),
});
export type SessionView = v.InferOutput<typeof SessionView>;
