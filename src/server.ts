import { scheduleRegistrationChecks } from "./phone-numbers/registration";
import { existsSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { databaseStatus } from "../db/client";
import { withTransaction } from "../db/transaction";
import { sqliteRecords } from "../db/records";
import { openPostgresRecords, type PostgresRecords } from "../db/postgres/records-db";
import { SQL } from "bun";
import type { Db } from "../db/client";
import { createApp } from "./app";
import { onDatabaseReplaced, writeBackup } from "./backups/backups";
import { openAppDatabase } from "./database-file/database-file";
import { scheduleBackups } from "./backups/schedule";
import { clockOf, ConfigError, type Config } from "./config";
import type { AppContext } from "./context";
import { rememberClientIp, resolveClientIp } from "./http/client-ip";
import { isShortLinkPath, redirectShortLink } from "./links/redirect";
import { moveContactClicks } from "./links/clicks";
import { limitRequestBody, readsOwnBody } from "./http/body-limit";
import { limitNesting } from "./http/body-nesting";
import { throughMaintenance } from "./http/maintenance";
import { securityHeaders } from "./http/security-headers";
import { createMailer } from "./mail/mailer";
import { systemSettings } from "./admin/settings";
import { registerScheduledCampaigns } from "./campaigns/scheduler";
import { listenForEvents, scheduleEventPruning } from "./events/events";
import { startJobRunner } from "./jobs/jobs";
import { startInboundMediaCopies } from "./inbound/media-copy";
import { startAutomation } from "./automation/runner";
import { registerDrips, releaseHeldDripSteps } from "./drips/runner";
import { scheduleDeliveryPruning } from "./outbound-webhooks/retention";
import { scheduleMediaSweep } from "./media/media";
import { sealClearSecrets, startOutboundWebhooks, webhookHolder } from "./outbound-webhooks/webhooks";
import { apiKeyHolder } from "./api-keys/keys";
import { registerCredentialHolder } from "./auth/session-credentials";
import { releaseAccountHeld } from "./campaigns/held";
import { campaignSendStates, pauseCampaign, repairInterruptedCampaigns, settleCampaigns } from "./campaigns/lifecycle";
import { resumeOutboxWriting } from "./campaigns/outbox-writer";
import { outboxStore, senderRegistry } from "./messages/outbox-store";
import { registerReconciliation } from "./messages/reconcile";
import { registerAdministratorNotices } from "./support/notify";
import { detachMessages } from "./messages/detach";
import { moveContactMessages } from "./messages/messages";
import { countNumbers, firstNumberOf, numberIdsOfProvider } from "./phone-numbers/numbers";
import { keyEarlierNames } from "./contacts/name-order";
import { failInterruptedImports } from "./contacts/csv-import";
import { countContacts } from "./contacts/stats";
import { attachCampaignMessages, attachToConversations, reserveSeqs } from "./conversations/conversations";
import { segmentsOutboundSince } from "./messages/stats";
import { SendingManager } from "./sending/manager";
import { realClock } from "./sending/ports";
import { deriveKey, loadOrCreateSecretKey } from "./secrets/secret-key";
import { listen, type Listening } from "./listen";
import { describeDatabase, PostgresStartError, preparePostgres } from "../db/postgres/start";
import { instanceId } from "./secrets/instance";
import { createOrPromoteAdmin } from "./auth/admins";
import { countUsers } from "./users/queries";
import { loadUiBundle, uiResponse } from "./web/ui-assets";
import { liveSockets } from "./live/socket";
import type { SocketData } from "./live/hub";
import type { Server } from "bun";
import { watchEventLoop } from "./metrics/event-loop";

export type RunningServer = { url: string; port: number; ctx: AppContext; stop: () => Promise<void> };

/**
 * Opens the data folder (database, secret key, migrations) and returns the context every domain uses. `opened`: the
 * key and the database's connection a listening server opened already (src/listen.ts).
 */
export async function openAppContext(
  config: Config,
  log: (line: string) => void = console.log,
  opened?: Pick<Listening, "master" | "connection">,
): Promise<AppContext> {
  // Only the service's own user may read the database and the key: 0700 for a new folder, a warning for an open one.
  if (!existsSync(config.dataDir)) mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  else if (statSync(config.dataDir).mode & 0o077) log(`warning: the data folder ${config.dataDir} is readable by other users; chmod 700 it`);
  const master = opened?.master ?? loadOrCreateSecretKey(config.dataDir, config.secretKeyFile);
  const postgres = config.databaseUrl ? await openPostgres(config, master, log) : null;
  const db = postgres
    ? postgresDb(postgres)
    : await openAppDatabase(join(config.dataDir, "smsdesk.db"), {
        connection: opened?.connection ?? undefined,
        beforeMigrations: async (sqlite) => {
          const backup = await writeBackup(sqlite, config.dataDir, "before-migrations", Date.now(), config.secretKeyFile);
          log(`backups: the data was backed up before applying new migrations (${backup.id})`);
        },
      });
  const mailer = await createMailer({ smtpUrl: config.smtpUrl, from: config.smtpFrom, dev: config.dev, log });
  const ctx: AppContext = {
    config,
    db,
    // Read at each call: a restore replaces ctx.db.
    get records() {
      return postgres ? postgres.db : sqliteRecords(ctx.db);
    },
    withTransaction: (fn) => withTransaction(ctx.db, fn),
    mailer,
    keys: { sessions: deriveKey(master, "sessions"), codes: deriveKey(master, "codes"), secrets: deriveKey(master, "secrets"), webhooks: deriveKey(master, "webhooks") },
    now: clockOf(config),
    log,
    dispatch: () => Promise.reject(new Error("the app is not started")),
    // Read at each call: a restore replaces ctx.db.
    databaseStatus: () => databaseStatus(ctx.db),
    // Both need the context itself; set just below.
    sending: null!,
    campaignOutbox: null!,
    threads: {
      reserve: (n) => reserveSeqs(ctx, n),
      attach: (messages) => attachToConversations(ctx, messages),
      attachCampaign: (m) => attachCampaignMessages(ctx, m),
    },
    detachProviderMessages: async (providerId) => {
      await detachMessages(ctx, "provider's number", await numberIdsOfProvider(ctx, providerId), "this provider");
      await detachMessages(ctx, "provider", [providerId], "this provider");
    },
    detachNumberMessages: (numberId) => detachMessages(ctx, "number", [numberId], "this number"),
    firstSenderNumber: (userId) => firstNumberOf(ctx, userId),
    contactMessages: {
      move: async (userId, fromIds, toId) => {
        await moveContactMessages(ctx, userId, fromIds, toId);
        await moveContactClicks(ctx, userId, fromIds, toId);
      },
    },
    releaseHeldMessages: async (userId) => (await releaseAccountHeld(ctx, userId)) + (await releaseHeldDripSteps(ctx, userId)),
    usageCounts: {
      contacts: (userId) => countContacts(ctx, userId),
      segmentsSince: (userId, since) => segmentsOutboundSince(ctx, userId, since),
      numbers: (userId) => countNumbers(ctx, userId),
    },
    onStop: postgres ? [() => postgres.close()] : [],
  };
  // The engine and the outbox, wired once: the messages domain is the outbox store, the campaigns domain answers for
  // its campaigns, and the engine runs on the context's clock (tests move ctx.now).
  ctx.campaignOutbox = {
    states: (ids) => campaignSendStates(ctx, ids),
    pause: (id, reason) => pauseCampaign(ctx, id, reason),
    settle: (ids) => settleCampaigns(ctx, ids),
  };
  if (postgres) {
    // The engine's store and the workers' records are not served on PostgreSQL yet (serve() starts none of them):
    // nothing queues a message there, so there is nothing to wake.
    ctx.sending = { wake() {}, start: async () => {}, stop: async () => {} };
    return ctx;
  }
  const buildSending = () => new SendingManager(outboxStore(ctx), senderRegistry(ctx), { ...realClock, now: () => ctx.now() }, log);
  ctx.sending = buildSending();
  // A restore (src/backups/) replaces the connection the outbox store prepared its statements on.
  onDatabaseReplaced(ctx, () => {
    ctx.sending = buildSending();
  });
  // Webhook signing secrets an older version kept in clear are sealed, at start and in a restored database.
  const sealed = await sealClearSecrets(ctx);
  if (sealed) log(`webhooks: ${sealed} signing secret(s) stored in clear were sealed`);
  onDatabaseReplaced(ctx, async () => void (await sealClearSecrets(ctx)));
  return ctx;
}

/**
 * DATABASE_URL=postgres://: the schema migrated and this process's key checked against the installation's
 * (db/postgres/start.ts), then the pool the records run on (db/postgres/records-db.ts).
 */
async function openPostgres(config: Config, master: Buffer, log: (line: string) => void): Promise<PostgresRecords> {
  const url = config.databaseUrl!;
  const source = config.secretKeyFile ?? join(config.dataDir, "secret.key");
  await preparePostgres(url, { fingerprint: instanceId(deriveKey(master, "secrets")), source }, Date.now(), log).catch((err) => {
    throw err instanceof PostgresStartError ? new ConfigError(err.message) : err;
  });
  log(`PostgreSQL: serving from ${describeDatabase(url)}`);
  return openPostgresRecords(new SQL(url, { max: POSTGRES_POOL }));
}

/** Connections of this process's pool: one per transaction open at once, and the statements outside them. */
const POSTGRES_POOL = 10;

/**
 * What `ctx.db` is on PostgreSQL: `ready` and the transactions of db/transaction.ts reach the installation's
 * database through it (`$postgres`), and a statement of a record not yet served on PostgreSQL (one that runs on
 * bun:sqlite's synchronous drizzle, or `$client`) throws, naming what it asked for, rather than reading another
 * database than the installation's.
 */
function postgresDb(postgres: PostgresRecords): Db {
  const known: Record<string | symbol, unknown> = { $postgres: postgres };
  return new Proxy(known, {
    get(target, name) {
      if (name in target) return target[name];
      // Awaiting ctx.db (never done) or printing it asks for these: answer as a plain object would.
      if (name === "then" || typeof name === "symbol") return undefined;
      throw new Error(`ctx.db.${String(name)}: a statement not served on PostgreSQL yet (its record still runs on SQLite only; issue 31 item 1)`);
    },
  }) as unknown as Db;
}

/**
 * `prepare` runs on the context before any worker starts: test entry points set their seams there. `listening`: a
 * server the caller started listening already (src/main.ts, before it loaded this module); else one is started
 * here. It serves requests with the app once everything is started; those that arrived meanwhile wait for it.
 */
export async function startServer(
  config: Config,
  log: (line: string) => void = console.log,
  prepare?: (ctx: AppContext) => void,
  listening: Listening = listen(config, log),
): Promise<RunningServer> {
  try {
    return await serve(config, log, prepare, listening);
  } catch (err) {
    await listening.fail();
    throw err;
  }
}

/**
 * A turn of the event loop between the steps of a start, each a few ms of work: the health checks answered while the
 * rest starts (src/listen.ts) are not held up by the whole of it.
 */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * What PostgreSQL does not serve yet (issue 31 item 1: their records still run on SQLite only), said once at start:
 * of the workers startWorkers starts, only the jobs runner with the jobs whose records are served (startPostgresWorkers),
 * and a request that reaches such a record answers an error.
 */
const NOT_SERVED_ON_POSTGRES =
  "the sending engine (so no text is sent), drips, automation, outbound webhooks' deliveries, reconciliation, backups, " +
  "the contacts' imports (CSV and JSON) and campaign audiences are not served on PostgreSQL yet; the accounts (sign-up, " +
  "sign-in, sessions, two-factor), their settings, provider accounts and sender numbers (with their registrations), the " +
  "contacts (the list, search, tags, duplicates, export, consent) and segments, the conversations (lists, threads, read " +
  "marks, states, possible opt-outs), the messages' lists and media, the keywords' list and tester, API keys, the " +
  "webhooks' settings, the event log and the jobs runner (the log's pruning, the media's sweep, the webhook deliveries' " +
  "pruning, the sender numbers' registration checks; its passes shared with the other processes) are";

/**
 * On PostgreSQL, the workers whose records are served there: the jobs runner, whose passes the installation's
 * processes share (each due job locked by one pass, FOR UPDATE SKIP LOCKED, and leased), with the event log's pruning,
 * the media's sweep, the webhook delivery log's pruning and the sender numbers' registration checks.
 */
async function startPostgresWorkers(ctx: AppContext) {
  await scheduleEventPruning(ctx, async () => (await systemSettings(ctx)).eventRetentionDays);
  await scheduleMediaSweep(ctx);
  await scheduleDeliveryPruning(ctx, async () => (await systemSettings(ctx)).eventRetentionDays);
  await scheduleRegistrationChecks(ctx);
  startJobRunner(ctx);
}

/** The engine and the background workers, started once the routes are built (on SQLite only, for now). */
async function startWorkers(ctx: AppContext, log: (line: string) => void) {
  const repaired= await repairInterruptedCampaigns(ctx);
  if (repaired) log(`sending: ${repaired} campaign(s) left half-written by an earlier crash were repaired`);
  const writing = await resumeOutboxWriting(ctx);
  if (writing) log(`sending: writing the outbox of ${writing} large campaign(s) resumes where it stopped`);
  await ctx.sending.start();
  ctx.onStop.push(() => ctx.sending.stop());
  await turn();
  registerScheduledCampaigns(ctx);
  await registerDrips(ctx);
  registerReconciliation(ctx);
  registerAdministratorNotices(ctx);
  await scheduleEventPruning(ctx, async () => (await systemSettings(ctx)).eventRetentionDays);
  await startOutboundWebhooks(ctx);
  await scheduleDeliveryPruning(ctx, async () => (await systemSettings(ctx)).eventRetentionDays);
  await scheduleMediaSweep(ctx);
  await turn();
  await startAutomation(ctx);
  await scheduleBackups(ctx);
  await scheduleRegistrationChecks(ctx);
  startInboundMediaCopies(ctx);
  startJobRunner(ctx);
  await turn();
}

async function serve(
  config: Config,
  log: (line: string) => void,
  prepare: ((ctx: AppContext) => void) | undefined,
  listening: Listening,
): Promise<RunningServer> {
  const ctx = await openAppContext(config, log, listening);
  prepare?.(ctx);
  if (config.adminEmail && config.adminPassword) {
    if ((await countUsers(ctx)).admins === 0) {
      await createOrPromoteAdmin(ctx, config.adminEmail, config.adminPassword);
      log(`created administrator ${config.adminEmail} from ADMIN_EMAIL`);
    }
  }
  watchEventLoop(ctx, listening.holds);
  await turn();
  // Before the routes are built (the contact list's order by name reads them), as before any request.
  if (!config.databaseUrl) await keyEarlierNames(ctx);
  // Before any request too: the import list shows them failed, and a new import finds the search index's usual merges.
  await failInterruptedImports(ctx);
  // A restored database may hold imports that were running when it was backed up: no process runs them now. One
  // from before migration 0052 has its names keyed as at a start.
  onDatabaseReplaced(ctx, async () => {
    await keyEarlierNames(ctx);
    await failInterruptedImports(ctx);
  });

  const app = createApp(ctx);
  ctx.dispatch = (request) => app.handle(request);
  // What sessions make that outlives them ends with them when the owner ends those sessions (a password change), on
  // either engine: on PostgreSQL too, a stolen session's key must not outlive the password change.
  registerCredentialHolder(ctx, apiKeyHolder);
  registerCredentialHolder(ctx, webhookHolder);
  await turn();
  if (config.databaseUrl) {
    log(`PostgreSQL: ${NOT_SERVED_ON_POSTGRES}`);
    await startPostgresWorkers(ctx);
  } else await startWorkers(ctx, log);
  const ui = await loadUiBundle();
  const live = liveSockets(ctx);
  if (config.databaseUrl) {
    // The sockets hear of what the installation's other processes append too (the log's trigger notifies, migration
    // 0081), on a connection of the listener's own: the hub then reads the log after its cursors, as for its own.
    const listener = new SQL(config.databaseUrl, { max: 1 });
    const subscription = await listenForEvents(ctx, listener);
    ctx.onStop.push(async () => {
      await subscription.unlisten();
      await listener.close();
    });
  }
  // After a restore the sockets' positions name events of the data replaced: they reconnect and resume or reset.
  onDatabaseReplaced(ctx, () => live.hub.stop());
  const headers = securityHeaders(config.publicUrl.startsWith("https:"));
  const missingUi = new TextEncoder().encode(
    "<!doctype html><title>smsdesk</title><p>The web interface is not built. Run <code>npm start</code> (or <code>bun scripts/build-ui.ts</code>).</p>",
  );

  // Precompressed at build time, chosen by Accept-Encoding (src/web/ui-assets.ts).
  const serveUi = (path: string, request: Request): Response =>
    uiResponse(ui, path, request.headers) ??
    new Response(missingUi, { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache" } });

  const fetch = async (request: Request, srv: Server<SocketData>): Promise<Response | undefined> => {
    const started = performance.now();
    const path = new URL(request.url).pathname;
    let response: Response;
    if (isShortLinkPath(path)) {
      // Short links (src/links/redirect.ts): first, so a campaign's clicks pass nothing else on their way.
      response = await redirectShortLink(ctx, request, path, resolveClientIp(request, srv.requestIP(request)?.address ?? "", config.trustedProxies));
    } else if (path === "/ws") {
      const refused = await live.upgrade(request, srv);
      if (!refused) return undefined;
      response = refused;
    } else if (path.startsWith("/api/") || path === "/api" || path === "/metrics") {
      // A body over its route's limit is refused before it is read (src/http/body-limit.ts), and one nested too
      // deep before it is parsed (src/http/body-nesting.ts).
      const sized = await limitRequestBody(request, path);
      const limited = sized instanceof Response ? sized : await limitNesting(sized, readsOwnBody(request.method, path));
      if (limited instanceof Response) response = limited;
      else {
        rememberClientIp(limited, srv.requestIP(request)?.address, config.trustedProxies);
        // A write during a restore is refused rather than answered and then discarded (src/http/maintenance.ts).
        response = await throughMaintenance(ctx, request.method, path, () => app.handle(limited));
      }
    } else if (request.method === "GET" || request.method === "HEAD") {
      response = serveUi(path === "/" ? "/index.html" : path, request);
    } else {
      response = Response.json({ message: "Method not allowed", code: "method_not_allowed" }, { status: 405 });
    }
    for (const [k, v] of Object.entries(headers)) if (!response.headers.has(k)) response.headers.set(k, v);
    const ip = srv.requestIP(request)?.address ?? "-";
    log(`${request.method} ${path} ${response.status} ${(performance.now() - started).toFixed(1)}ms ${ip}`);
    return response;
  };
  listening.open({ fetch, websocket: live.websocket });

  const { server, lock } = listening;
  return {
    url: listening.url,
    port: listening.port,
    ctx,
    async stop() {
      await server.stop(true);
      for (const hook of ctx.onStop) await hook();
      ctx.mailer.close();
      if (!config.databaseUrl) ctx.db.$client.close();
      lock.release();
    },
  };
}
