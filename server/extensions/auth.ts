import type { ConnectionConfiguration, Extension, onAuthenticatePayload } from '@hocuspocus/server';
import type { Claims } from '../../shared/protocol/claims.ts';
import { parseDocName } from '../../shared/model/doc-layout.ts';
import { denialReasons, type DenialReason } from '../../shared/protocol/denials.ts';
import type { TokenRefusal, TokenVerifier } from '../auth/tokens.ts';
import { coversDoc, may, mayWritePart } from '../../shared/protocol/permissions.ts';
import type { Store } from '../store/store.ts';
import { extensionPriority } from '../sync/extension-priorities.ts';

/** What every authenticated connection carries in its Hocuspocus context. */
export interface AuthContext {
  principal: Claims;
}

/**
 * Thrown to refuse a connection. Hocuspocus sends `reason` to the provider as its
 * permission-denied message.
 */
export class ConnectionDenied extends Error {
  readonly reason: DenialReason;

  constructor(reason: DenialReason) {
    super(reason);
    this.name = 'ConnectionDenied';
    this.reason = reason;
  }
}

const denialOf: Record<TokenRefusal, DenialReason> = {
  invalid: denialReasons.invalidToken,
  expired: denialReasons.expiredToken,
  revoked: denialReasons.revokedToken,
};

/**
 * Admits a connection to a document part when its token verifies, the document exists and the
 * token may see it; makes the connection read-only unless the role may write that part.
 */
export class Auth implements Extension {
  extensionName = 'TandemAuth';
  priority = extensionPriority.auth;

  /** The principal each admitted connection authenticated as, by its Hocuspocus connection configuration. */
  private readonly admitted = new WeakMap<ConnectionConfiguration, Claims>();

  constructor(private readonly options: { verifyToken: TokenVerifier; store: Store }) {}

  /**
   * The principal of a connection this extension has just admitted, for the `onAuthenticate`
   * hooks after it (Hocuspocus hands them the context as it was before this hook answered);
   * undefined before that.
   */
  principalOf(connectionConfig: ConnectionConfiguration): Claims | undefined {
    return this.admitted.get(connectionConfig);
  }

  async onAuthenticate({ token, documentName, connectionConfig }: onAuthenticatePayload): Promise<AuthContext> {
    const check = await this.options.verifyToken(token);
    if (!check.ok) throw new ConnectionDenied(denialOf[check.reason]);
    const principal = check.claims;
    const target = parseDocName(documentName);
    if (!target) throw new ConnectionDenied(denialReasons.unknownDocument);
    if (!coversDoc(principal, target.docId)) {
      throw new ConnectionDenied(denialReasons.notAllowed);
    }
    if (!may(principal.role, 'doc.read')) throw new ConnectionDenied(denialReasons.notAllowed);
    // CAT3: a document in the trash opens for nobody.
    const record = await this.options.store.getDoc(target.docId);
    if (!record || record.deletedAt !== null) throw new ConnectionDenied(denialReasons.unknownDocument);
    // DOC3: read-only per role and part; Hocuspocus applies nothing such a connection sends.
    connectionConfig.readOnly = !mayWritePart(principal.role, target.part);
    this.admitted.set(connectionConfig, principal);
    // INV6: the people list's `lastSeen`; a person who joined by no invite has no row to touch.
    if (target.part === 'text') this.options.store.invites.seen(target.docId, principal.sub, Date.now()).catch((error) => console.error('[tandem]', error));
    return { principal };
  }
}
