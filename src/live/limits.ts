/** The largest message a client may send (an auth or resume message is well under 4 KB). */
export const MAX_CLIENT_MESSAGE = 4096;

/**
 * The sockets' settings, which Bun takes when the server starts listening (src/listen.ts, before the rest of the
 * program is loaded) as well as in live/socket.ts's handler.
 */
export const SOCKET_SETTINGS = {
  maxPayloadLength: MAX_CLIENT_MESSAGE,
  // Pings keep proxies from closing a quiet socket; a client gone without a close is dropped after this.
  idleTimeout: 60,
  sendPings: true,
} as const;
