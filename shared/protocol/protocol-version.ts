/**
 * VER1–VER4: the version of the protocol between the server and its clients, defined once.
 *
 * `protocolVersion` is what this build speaks. It goes up by one whenever a change would let a
 * client of the previous build do harm or go wrong (a message it misreads, content it would
 * delete, a record it would write in a shape the server now refuses); `oldestSupportedProtocol`
 * is the oldest version the server still serves, raised only when the change makes older
 * clients unsafe. A compatible change (something old clients ignore) changes neither.
 */
export const protocolVersion = 1;
export const oldestSupportedProtocol = 1;

/** The query parameter in which a WebSocket client says its version (`/collab?protocol=1`). */
export const protocolParameter = 'protocol';

/**
 * VER2: a client that says no version (a y-websocket client, a build from before versions were
 * sent) speaks version 1, the first: it is served for as long as the server supports version 1.
 */
export const unstatedProtocol = 1;

/** VER3: the close of a socket whose client is older than the server supports. */
export const protocolOutdated = { code: 4426, reason: 'PROTOCOL_OUTDATED' } as const;

/** VER2: the close of a socket whose `protocol` parameter is not a positive integer. */
export const protocolMalformed = { code: 4400, reason: 'Malformed protocol version' } as const;

/** `url` with this build's protocol version as its `protocol` parameter. */
export function withProtocolVersion(url: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set(protocolParameter, String(protocolVersion));
  return parsed.href;
}

/** The protocol version a connection's URL states; `unstatedProtocol` without one; null when malformed. */
export function statedProtocol(url: URL): number | null {
  const stated = url.searchParams.get(protocolParameter);
  if (stated === null) return unstatedProtocol;
  return /^[1-9]\d{0,8}$/.test(stated) ? Number(stated) : null;
}

/**
 * VER3: why a server whose oldest supported version is `oldest` refuses the client of `url`, or
 * null when it serves it. A client newer than the server is served: during a release the new
 * shell may reach an instance that is not updated yet, and what it writes is judged by that
 * instance's guards as any client's is.
 */
export function protocolRefusal(url: URL, oldest: number = oldestSupportedProtocol): { code: number; reason: string } | null {
  const stated = statedProtocol(url);
  if (stated === null) return protocolMalformed;
  return stated < oldest ? protocolOutdated : null;
}
