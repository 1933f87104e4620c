import type { Server, WebSocketHandler } from "bun";
import { liveSessionUserId, onSessionsEnded, SESSION_COOKIE, tokenOfRequest } from "../auth/sessions";
import type { AppContext } from "../context";
import { resolveClientIp } from "../http/client-ip";
import { CLOSE, LiveHub, type LiveSocket, type SocketData } from "./hub";
import { MAX_CLIENT_MESSAGE, SOCKET_SETTINGS } from "./limits";

const MAX_EVENT_ID = Number.MAX_SAFE_INTEGER;

export type LiveSockets = {
  hub: LiveHub;
  /** For Bun.serve's fetch on `/ws`: a Response when the upgrade is refused, undefined once upgraded. */
  upgrade(request: Request, server: Server<SocketData>): Promise<Response | undefined>;
  /** Bun.serve's `websocket` option. */
  websocket: WebSocketHandler<SocketData>;
};

/** A client's message: `auth` (token, and where to resume) or `resume`; anything else is ignored. */
function parseClientMessage(raw: string | Buffer): { type: "auth" | "resume"; token?: string; lastEventId: number | null } | null {
  if (raw.length > MAX_CLIENT_MESSAGE) return null;
  let msg: unknown;
  try {
    msg = JSON.parse(typeof raw === "string" ? raw : raw.toString("utf8"));
  } catch {
    return null;
  }
  if (!msg || typeof msg !== "object") return null;
  const m = msg as Record<string, unknown>;
  if (m.type !== "auth" && m.type !== "resume") return null;
  const id = m.lastEventId;
  const lastEventId = typeof id === "number" && Number.isInteger(id) && id >= 0 && id <= MAX_EVENT_ID ? id : null;
  return { type: m.type, token: typeof m.token === "string" && m.token.length <= 2048 ? m.token : undefined, lastEventId };
}

const hubs = new WeakMap<AppContext, LiveHub>();

/**
 * Each socket holds memory (and, until it signs in, a timer), so an anonymous client could otherwise open them
 * without end: sockets awaiting sign-in are bounded per address and in all (the upgrade answers 429 / 503), and
 * signed-in sockets per account (one past the bound closes with 4429; a browser opens one per tab).
 */
export type LiveLimits = { pending: number; pendingPerAddress: number; perAccount: number };
const limitsOf = new WeakMap<AppContext, LiveLimits>();
/** The running server's socket bounds (tests lower them). */
export const liveLimitsOf = (ctx: AppContext): LiveLimits | undefined => limitsOf.get(ctx);
const TOO_MANY_FOR_ACCOUNT = 4429;

/** The running server's hub (tests and the benchmark read its socket counts and shorten its timeouts). */
export const liveHubOf = (ctx: AppContext): LiveHub | undefined => hubs.get(ctx);

const hasSessionCookie = (request: Request) =>
  (request.headers.get("cookie") ?? "").split(";").some((c) => c.trim().startsWith(`${SESSION_COOKIE}=`));

/**
 * The WebSocket at /ws. A session found at the upgrade (the cookie, or a Bearer header from a non-browser client)
 * authenticates it at once; otherwise the first message must be `{type:"auth", token}` within the hub's auth
 * timeout, or the socket closes with 4401. A browser attaches the cookie to a socket opened by any site, so with a
 * cookie the Origin must be PUBLIC_URL's (cross-site WebSocket hijacking). The client says where to resume
 * (`lastEventId` in its auth or `resume` message); it never says who it is.
 */
export function liveSockets(ctx: AppContext): LiveSockets {
  const sessionOf = (token: string) => liveSessionUserId(ctx, token);
  const hub = new LiveHub(ctx, sessionOf);
  hubs.set(ctx, hub);
  ctx.onStop.unshift(() => hub.stop());
  onSessionsEnded(ctx, (userId) => hub.sessionsEnded(userId));
  // Generous enough for an office behind one address and the inbound benchmark's 50 sockets of one account.
  const limits: LiveLimits = { pending: 1000, pendingPerAddress: 100, perAccount: 100 };
  limitsOf.set(ctx, limits);
  // The address of each socket still awaiting sign-in, and how many each address has.
  const pendingAddress = new WeakMap<SocketData, string>();
  const pendingByAddress = new Map<string, number>();
  let pending = 0;
  /** Sockets whose session is being read: a second auth or resume meanwhile is ignored, as once signed in. */
  const authenticating = new WeakSet<SocketData>();
  const settle = (ws: LiveSocket) => {
    const address = pendingAddress.get(ws.data);
    if (address === undefined) return;
    pendingAddress.delete(ws.data);
    pending--;
    const left = pendingByAddress.get(address)! - 1;
    if (left) pendingByAddress.set(address, left);
    else pendingByAddress.delete(address);
  };

  const authenticate = async (ws: LiveSocket, token: string, resumeAfter: number | null) => {
    if (authenticating.has(ws.data)) return;
    authenticating.add(ws.data);
    let userId: string | null;
    try {
      userId = await sessionOf(token);
    } catch (err) {
      ctx.log(`live: session check: ${(err as Error)?.stack ?? err}`);
      return ws.close(1011, "Server error");
    } finally {
      authenticating.delete(ws.data);
    }
    // Closed while its session was read: the close handler has settled it already.
    if (ws.readyState !== 1) return;
    if (!userId) return ws.close(CLOSE.unauthorized, "Sign in again");
    if (ws.data.authTimer) clearTimeout(ws.data.authTimer);
    ws.data.authTimer = null;
    settle(ws);
    if (hub.socketCount(userId) >= limits.perAccount) return ws.close(TOO_MANY_FOR_ACCOUNT, "Too many connections for this account");
    ws.data.token = token;
    ws.data.checkedAt = ctx.now();
    hub.join(ws, userId, resumeAfter);
  };

  return {
    hub,
    async upgrade(request, server) {
      const token = tokenOfRequest(request) ?? null;
      // A browser cannot set headers on a socket: a token from one came from another program, not a page.
      const fromHeader = !!(request.headers.get("authorization") || request.headers.get("x-auth-token"));
      if (token && !fromHeader && hasSessionCookie(request)) {
        const origin = request.headers.get("origin");
        const expected = new URL(ctx.config.publicUrl).origin;
        if (origin !== expected) {
          return Response.json({ message: `Cross-site request refused: open smsdesk at ${expected}`, code: "csrf" }, { status: 403 });
        }
      }
      // The session is read first: from the bounds' checks to the upgrade nothing is awaited.
      const knownToken = token && (await sessionOf(token)) ? token : null;
      const address = resolveClientIp(request, server.requestIP(request)?.address ?? "unknown", ctx.config.trustedProxies);
      if ((pendingByAddress.get(address) ?? 0) >= limits.pendingPerAddress)
        return Response.json({ message: "Too many connections waiting to sign in from this address", code: "rate_limited" }, { status: 429 });
      if (pending >= limits.pending) return Response.json({ message: "Too many connections waiting to sign in; try again shortly", code: "busy" }, { status: 503 });
      const data: SocketData = { userId: null, token: knownToken, checkedAt: 0, sent: 0, stalledAt: null, greeted: false, live: false, authTimer: null };
      hub.server ??= server;
      if (server.upgrade(request, { data })) {
        pendingAddress.set(data, address);
        pendingByAddress.set(address, (pendingByAddress.get(address) ?? 0) + 1);
        pending++;
        return undefined;
      }
      return Response.json({ message: "Expected a WebSocket upgrade", code: "bad_request" }, { status: 400 });
    },
    websocket: {
      ...SOCKET_SETTINGS,
      open(ws) {
        // Authenticated at the upgrade or not, the first message says where to resume; a socket with a session that
        // sends nothing within the timeout starts at the newest event, one without is closed.
        ws.data.authTimer = setTimeout(() => {
          ws.data.authTimer = null;
          if (ws.data.userId) return;
          if (ws.data.token) void authenticate(ws, ws.data.token, null);
          else ws.close(CLOSE.unauthorized, "Sign in first");
        }, hub.authTimeoutMs);
      },
      message(ws, raw) {
        const msg = parseClientMessage(raw);
        if (!msg || ws.data.userId) return;
        // authenticate answers its own failures (it closes the socket with the reason): nothing to await here.
        if (msg.type === "auth" && msg.token) void authenticate(ws, msg.token, msg.lastEventId);
        else if (ws.data.token) void authenticate(ws, ws.data.token, msg.lastEventId);
        else ws.close(CLOSE.unauthorized, "Sign in first");
      },
      drain(ws) {
        hub.drained(ws);
      },
      close(ws) {
        settle(ws);
        hub.leave(ws);
      },
    },
  };
}
