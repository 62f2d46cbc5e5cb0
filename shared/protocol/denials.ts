/**
 * DOC4: the reasons the server gives when it refuses a WebSocket connection to a document; the
 * provider reports them through `onAuthenticationFailed({reason})`.
 */
export const denialReasons = {
  /** No token, a malformed one, or one not signed by this server. */
  invalidToken: 'Invalid token',
  /** The token was valid but its `exp` has passed. */
  expiredToken: 'Token expired',
  /** The token's id is on the server's revocation list. */
  revokedToken: 'Token revoked',
  /** The document name is malformed or no such document exists. */
  unknownDocument: 'Unknown document',
  /** The token is limited to another document, or its role may not read documents. */
  notAllowed: 'Not allowed',
  /** The token's subject already has as many WebSockets open as the server allows. */
  tooManyConnections: 'Too many connections',
} as const;

/** TOKEN4: the WebSocket close code of a connection whose token was revoked or expired while it was open. */
export const tokenEndedCloseCode = 4401;

export type DenialReason = (typeof denialReasons)[keyof typeof denialReasons];
