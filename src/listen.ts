import type { Database } from "bun:sqlite";
import type { Server, WebSocketHandler } from "bun";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { openSqlite, sqliteStatus } from "../db/sqlite";
import type { Config } from "./config";
import { lockDataFolder, type DataFolderLock } from "./data-lock";
import { healthAnswer } from "./health/answer";
import { UPLOAD_BODY_LIMIT } from "./http/body-limit";
import { securityHeaders } from "./http/security-headers";
import { SOCKET_SETTINGS } from "./live/limits";
import { eventLoopTimer, type EventLoopHolds } from "./metrics/event-loop";
import { deriveKey, loadOrCreateSecretKey } from "./secrets/secret-key";

/** Bun.serve's fetch: a Response, or undefined once the request was upgraded to a WebSocket. */
export type Handler = (request: Request, server: Server<any>) => Response | undefined | Promise<Response | undefined>;

/**
 * A server listening before the program is loaded (issue 29 item 6). Loading every module and building the app
 * took 200-500 ms of each start of the executable; so a server first takes the data folder's lock, reads the secret
 * key, opens the database's connection and listens, with this module's few imports, and answers GET /api/health
 * itself (the database asked, as its route does) while the rest loads. Any other request waits for the app and is
 * then served by it as if it had arrived after (never a 404 or a 503 for being early); `/ws` is upgraded then too.
 */
export type Listening = {
  server: Server<any>;
  /** The address it listens on (127.0.0.1 for 0.0.0.0). */
  url: string;
  port: number;
  lock: DataFolderLock;
  /** The installation's master key (secret.key or SECRET_KEY_FILE). */
  master: Buffer;
  /** The database's connection (SQLite mode; null with DATABASE_URL, where nothing is answered before the app). */
  connection: Database | null;
  /** The event loop's holds, measured from the moment it listens: what loads after counts too. */
  holds: EventLoopHolds;
  /** From now on `app` serves every request (those that waited first, in the order they came). */
  open(app: { fetch: Handler; websocket: WebSocketHandler<any> }): void;
  /** The start failed: waiting requests answer 503, the server stops, the connection closes and the lock is let go. */
  fail(): Promise<void>;
};

export function listen(config: Config, log: (line: string) => void): Listening {
  // One serving process per data folder (src/data-lock.ts), taken before anything is opened and kept until stop.
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  // On PostgreSQL several processes are one installation (and each may share a data folder with the others).
  const lock = config.databaseUrl ? { release: () => {} } : lockDataFolder(config.dataDir);
  let connection: Database | null = null;
  try {
    const master = loadOrCreateSecretKey(config.dataDir, config.secretKeyFile);
    connection = config.databaseUrl ? null : openSqlite(join(config.dataDir, "smsdesk.db"));
    return serveEarly(config, log, lock, master, connection);
  } catch (err) {
    connection?.close();
    lock.release();
    throw err;
  }
}

function serveEarly(config: Config, log: (line: string) => void, lock: DataFolderLock, master: Buffer, connection: Database | null): Listening {
  const secrets = deriveKey(master, "secrets");
  const headers = securityHeaders(config.publicUrl.startsWith("https:"));
  let app: { fetch: Handler; websocket: WebSocketHandler<any> } | null = null;
  let failed = false;
  const { promise: opened, resolve: opening } = Promise.withResolvers<void>();

  /** GET or HEAD /api/health before the app is loaded, answered as its route answers (health/routes.ts). */
  const health = (request: Request): Response => {
    const { status, body } = healthAnswer(sqliteStatus(connection!), secrets);
    const response = request.method === "HEAD" ? new Response(null, { status, headers: { "content-type": "application/json" } }) : Response.json(body, { status });
    for (const [k, v] of Object.entries(headers)) response.headers.set(k, v);
    return response;
  };
  const starting = () =>
    Response.json({ message: "The server could not start", code: "unavailable" }, { status: 503, headers: { ...headers, "retry-after": "5" } });

  const server = Bun.serve({
    port: config.port,
    hostname: config.host,
    // The ceiling is the CSV upload's; every other route has its own, smaller limit (src/http/body-limit.ts).
    maxRequestBodySize: UPLOAD_BODY_LIMIT,
    // Live updates (src/live/): the app's handlers, which a socket reaches only once the app upgraded it.
    websocket: {
      ...SOCKET_SETTINGS,
      open: (ws) => app!.websocket.open?.(ws),
      message: (ws, message) => app!.websocket.message?.(ws, message),
      drain: (ws) => app!.websocket.drain?.(ws),
      close: (ws, code, reason) => app!.websocket.close?.(ws, code, reason),
    },
    fetch(request, srv) {
      if (app) return app.fetch(request, srv);
      if (failed) return starting();
      const path = new URL(request.url).pathname;
      if (connection && path === "/api/health" && (request.method === "GET" || request.method === "HEAD")) {
        const started = performance.now();
        const response = health(request);
        log(`${request.method} ${path} ${response.status} ${(performance.now() - started).toFixed(1)}ms ${srv.requestIP(request)?.address ?? "-"}`);
        return response;
      }
      return opened.then(() => (app ? app.fetch(request, srv) : starting()));
    },
  });
  // From the moment it listens (a port in use throws before any timer is left running).
  const holds = eventLoopTimer();
  const port = server.port!;
  // PORT=0 (tests): the public URL names port 0 until the system picks one; passkeys and links need the real one.
  if (new URL(config.publicUrl).port === "0") {
    if (config.linkDomain === config.publicUrl) config.linkDomain = config.publicUrl.replace(/:0(?=\/|$)/, `:${port}`);
    config.publicUrl = config.publicUrl.replace(/:0(?=\/|$)/, `:${port}`);
  }
  return {
    server,
    url: `http://${config.host === "0.0.0.0" ? "127.0.0.1" : config.host}:${port}`,
    port,
    lock,
    master,
    connection,
    holds,
    open(served) {
      app = served;
      opening();
    },
    async fail() {
      failed = true;
      opening();
      holds.stop();
      // Not forced: the requests that waited get their answer first.
      await server.stop();
      connection?.close();
      lock.release();
    },
  };
}
