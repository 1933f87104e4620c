import type { Server, ServerWebSocket } from "bun";
import type { AppContext } from "../context";
import { countEvents, lastEventId, onEventsCommitted, readEvents, type AppEvent } from "../events/events";
import { campaignOf, frameOf, progressFrame, type LiveFrame } from "./frames";

/** Close codes the client acts on (ui/lib/live.ts keeps the same numbers). */
export const CLOSE = {
  /** No valid session: the auth message never came, or named no session. */
  unauthorized: 4401,
  /** The client read too slowly; it reconnects and resumes from its last event id. */
  slow: 4008,
  /** The server is stopping; reconnect later. */
  going: 1001,
} as const;

/**
 * Bytes a socket may have waiting to go out. Above this nothing more is queued for it: it catches up from the log
 * when it drains, and one still stalled after STALL_LIMIT_MS is closed (it resumes when it reconnects).
 */
export const SEND_BUFFER_LIMIT = 1 << 20;
export const STALL_LIMIT_MS = 10_000;
/** Events a reconnecting client may be behind; further back it is told to refetch (`reset`). */
export const MAX_REPLAY = 10_000;
/**
 * Replays (a socket resuming behind the account's newest event) one account may start per minute. Past it the
 * socket is told to reload what it shows (`reset` with reason `replay_limit`) and goes live from the newest event:
 * forty tabs resuming from event 0 at once would otherwise read and send the log forty times over.
 */
export const REPLAYS_PER_MINUTE = 20;
const MINUTE_MS = 60_000;
/**
 * How long (ms) a page of replayed frames, once built, is handed to the account's other sockets replaying the same
 * stretch of the log: sockets that reconnect together (a restart, a network drop) read and serialise it once.
 */
export const REPLAY_PAGE_TTL_MS = 10_000;
/** Work (ms) the sockets catching up may take of one turn of the event loop before requests get theirs. */
export const REPLAY_TURN_MS = 10;
/** A campaign's progress frame goes out at most this often (ms) while its messages move; start and end at once. */
export const PROGRESS_EVERY_MS = 500;
/**
 * Events of one account published per turn of the event loop: a page's frames cost about 0.1 ms each (the message
 * read back), so a backlog of thousands goes in slices of ~20 ms with requests served between them.
 */
export const PUSH_PAGE = 200;
/** A socket's session is checked again when it has not been for this long (ms) and an event is pushed to it. */
const RECHECK_SESSION_MS = 60_000;

export type SocketData = {
  /** Set once authenticated; never from anything the client claims. */
  userId: string | null;
  token: string | null;
  checkedAt: number;
  /** The newest event id this socket was sent (or told it is past). */
  sent: number;
  /** When its send buffer passed the limit (ctx.now); null while it keeps up. */
  stalledAt: number | null;
  /** Whether it was sent `ready` (or `reset`): after what it missed, before anything live. */
  greeted: boolean;
  /** Subscribed to its account's topic: caught up and keeping up, it gets live frames by one publish for all. */
  live: boolean;
  authTimer: ReturnType<typeof setTimeout> | null;
};
export type LiveSocket = ServerWebSocket<SocketData>;

/** A page of an account's replay: its frames for the events in (after, through], all of them. */
type ReplayPage = { after: number; through: number; frames: Outgoing[]; builtAt: number };
type Account = { cursor: number; topic: string; sockets: Set<LiveSocket>; replayPages: Map<number, ReplayPage> };
const topicOf = (userId: string) => `account:${userId}`;

const count = (pages: { pages: number; events: number; largestPage: number }, events: number) => {
  pages.pages++;
  pages.events += events;
  pages.largestPage = Math.max(pages.largestPage, events);
};

/** A frame serialised once, whatever the number of sockets it goes to. */
type Outgoing = { eventId: number; json: string };
const outgoing = (frame: LiveFrame): Outgoing => ({ eventId: frame.eventId, json: JSON.stringify(frame) });

/**
 * Fans the event log out to connected sockets. One reader per account with sockets: after a transaction that
 * appended events commits (the event log's post-commit listener), each such account's new events are read once,
 * turned into frames once, and published once to the account's topic, which every socket that keeps up is
 * subscribed to (Bun writes to each). A socket that falls behind leaves the topic, catches up from the log on
 * its own when it drains, and is closed if it does not; it never holds up the others.
 */
export class LiveHub {
  /** The server the sockets belong to, known from the first upgrade (the hub exists before Bun.serve returns). */
  server: Server<SocketData> | null = null;
  private accounts = new Map<string, Account>();
  private passQueued = false;
  /** Campaigns whose progress frame waits out PROGRESS_EVERY_MS: the newest event id it will carry. */
  private progressDue = new Map<string, { userId: string; eventId: number }>();
  private progressSentAt = new Map<string, number>();
  private progressTimer: ReturnType<typeof setTimeout> | null = null;
  private stallTimer: ReturnType<typeof setTimeout> | null = null;
  /** Pages of events published, and sent to sockets catching up, so far: their events and the largest page (tests assert the bound). */
  readonly pushed = { pages: 0, events: 0, largestPage: 0 };
  readonly replayed = { pages: 0, events: 0, largestPage: 0 };
  /** Replay pages handed on from an earlier socket's replay, not read again; replays refused by the per-minute cap. */
  readonly replayShared = { pages: 0, refused: 0 };
  /** When each account's replays of the last minute started (kept apart from its sockets: one may leave and come back). */
  private replaysAt = new Map<string, number[]>();
  private replaysSweptAt = 0;
  /** Sockets with pages of their replay still to send, in turn. */
  private catchingUp: { ws: LiveSocket; account: Account }[] = [];
  private catchUpQueued = false;
  /** Exposed for tests: how long a socket may stay unauthenticated, and the slow-consumer bounds. */
  authTimeoutMs = 5000;
  sendBufferLimit = SEND_BUFFER_LIMIT;
  stallLimitMs = STALL_LIMIT_MS;
  /** The per-minute replay cap (the benchmark lifts it to measure the shared pages alone). */
  replaysPerMinute = REPLAYS_PER_MINUTE;
  /**
   * The hub's work (joins, passes, catch-up pages, held progress), one piece at a time in the order it was queued:
   * each reads the log and the records it turns into frames (async records), then sends with nothing awaited, so a
   * socket's frames go out in the log's order and no pass sees an account half-updated by another.
   */
  private work: Promise<void> = Promise.resolve();
  /** Counts the hub's stops (a restore stops it): work queued before a stop does nothing after it. */
  private generation = 0;
  /** Sockets authenticated and waiting for their join's turn, per account (counted with the account's sockets). */
  private joining = new Map<string, number>();

  constructor(
    private ctx: AppContext,
    private sessionOf: (token: string) => Promise<string | null>,
  ) {}

  /** Sockets connected now, per account (for tests and the benchmark); an account's count has those joining. */
  socketCount(userId?: string): number {
    if (userId) return (this.accounts.get(userId)?.sockets.size ?? 0) + (this.joining.get(userId) ?? 0);
    let n = 0;
    for (const a of this.accounts.values()) n += a.sockets.size;
    return n;
  }

  /** Queues a piece of the hub's work behind the others; an error is logged, and work of a stopped hub dropped. */
  private serially(fn: () => Promise<void>) {
    const generation = this.generation;
    this.work = this.work
      .then(() => (generation === this.generation ? fn() : undefined))
      .catch((err) => {
        // A stop (a restore closing the database) cuts short what was under way: nothing to report.
        if (generation === this.generation) this.ctx.log(`live: ${(err as Error)?.stack ?? err}`);
      });
  }

  /** Resolves once the work queued so far is done (tests). */
  idle(): Promise<void> {
    return this.work;
  }

  /**
   * Adds an authenticated socket. From `resumeAfter` it is first sent what it missed, in order; without one it
   * starts at the newest event. Either way it is told where it stands (`ready`), or to refetch (`reset`) when
   * what it missed is no longer kept.
   */
  join(ws: LiveSocket, userId: string, resumeAfter: number | null) {
    this.joining.set(userId, (this.joining.get(userId) ?? 0) + 1);
    this.serially(async () => {
      try {
        await this.admit(ws, userId, resumeAfter);
      } finally {
        const left = this.joining.get(userId)! - 1;
        if (left) this.joining.set(userId, left);
        else this.joining.delete(userId);
      }
    });
  }

  private async admit(ws: LiveSocket, userId: string, resumeAfter: number | null) {
    if (ws.readyState !== 1) return;
    // One page of the account's backlog first (PUSH_PAGE events, as any pass): a socket that starts at the cursor
    // is live from there, and the rest of the backlog reaches it published, a page per turn of the event loop.
    let account = this.accounts.get(userId);
    if (account) {
      if (await this.pushAccount(userId, account)) this.continuePasses();
    } else {
      account = { cursor: await lastEventId(this.ctx), topic: topicOf(userId), sockets: new Set(), replayPages: new Map() };
    }
    // Closed while the log was read; or the account's last socket left meanwhile, and it is kept again.
    if (ws.readyState !== 1) return;
    if (this.accounts.get(userId) !== account) {
      this.accounts.set(userId, account);
      if (this.accounts.size === 1) onEventsCommitted(this.ctx, () => this.notify());
    }
    ws.data.userId = userId;
    const resuming = resumeAfter !== null && resumeAfter !== account.cursor;
    ws.data.sent = resuming ? resumeAfter : account.cursor;
    account.sockets.add(ws);
    if (!resuming) return this.catchUp(ws, account);
    // The cap first: past it, the log is not even counted.
    if (!this.replayAllowed(userId)) {
      this.replayShared.refused++;
      return this.reset(ws, account, "replay_limit");
    }
    if (!(await this.canReplay(userId, resumeAfter, account.cursor))) return this.reset(ws, account);
    this.replaysAt.get(userId)!.push(this.ctx.now());
    this.catchUp(ws, account);
  }

  /** The socket starts at the newest event, told to refetch what it shows (why, when it is the replay cap). */
  private reset(ws: LiveSocket, account: Account, reason?: "replay_limit") {
    ws.data.sent = account.cursor;
    ws.data.greeted = true;
    this.send(ws, JSON.stringify(reason ? { type: "reset", reason, lastEventId: account.cursor } : { type: "reset", lastEventId: account.cursor }));
    this.goLive(ws, account);
  }

  /** Whether the account started fewer than `replaysPerMinute` replays in the last minute (by ctx.now). */
  private replayAllowed(userId: string): boolean {
    const now = this.ctx.now();
    // Accounts that replayed once and went away are dropped, a sweep a minute at most.
    if (now - this.replaysSweptAt >= MINUTE_MS) {
      this.replaysSweptAt = now;
      for (const [id, times] of this.replaysAt) if (times.every((at) => now - at >= MINUTE_MS)) this.replaysAt.delete(id);
    }
    const recent = (this.replaysAt.get(userId) ?? []).filter((at) => now - at < MINUTE_MS);
    this.replaysAt.set(userId, recent);
    return recent.length < this.replaysPerMinute;
  }

  /** `ready` once the socket has all it missed: live frames follow the id it names. */
  private greet(ws: LiveSocket, account: Account) {
    if (ws.data.stalledAt !== null) return;
    if (!ws.data.greeted) {
      ws.data.greeted = true;
      this.send(ws, JSON.stringify({ type: "ready", lastEventId: ws.data.sent }));
    }
    this.goLive(ws, account);
  }

  private goLive(ws: LiveSocket, account: Account) {
    if (ws.data.stalledAt !== null || ws.readyState !== 1) return;
    ws.subscribe(account.topic);
    ws.data.live = true;
  }

  /** Bun's `drain`: a stalled socket has room again; it catches up from the log where it stopped. */
  drained(ws: LiveSocket) {
    const account = ws.data.userId ? this.accounts.get(ws.data.userId) : undefined;
    if (ws.data.stalledAt === null || !account?.sockets.has(ws)) return;
    ws.data.stalledAt = null;
    this.serially(async () => {
      if (!account.sockets.has(ws)) return;
      if (!(await this.canReplay(ws.data.userId!, ws.data.sent, account.cursor))) this.closeSlow(ws);
      else this.catchUp(ws, account);
    });
  }

  leave(ws: LiveSocket) {
    if (ws.data.authTimer) clearTimeout(ws.data.authTimer);
    const userId = ws.data.userId;
    const account = userId ? this.accounts.get(userId) : undefined;
    if (!account || !account.sockets.delete(ws) || account.sockets.size) return;
    this.accounts.delete(userId!);
    if (!this.accounts.size) onEventsCommitted(this.ctx, null);
  }

  /** Events were committed: read them in the hub's next turn of work (one pass for a burst). */
  notify() {
    if (this.passQueued || !this.accounts.size) return;
    this.passQueued = true;
    this.serially(() => this.pass());
  }

  /**
   * One page (at most PUSH_PAGE events) per account; a backlog (a burst, or the log written while the loop was
   * held up) goes on after a turn of the event loop, so requests (webhooks) are answered between pages instead of
   * waiting out the whole backlog.
   */
  private async pass() {
    this.passQueued = false;
    // Every socket gone (or the server stopped, its database closed) since the pass was queued. The log's reads
    // wait (ready) while another caller's transaction is open: they see what committed, never what may roll back.
    if (!this.accounts.size) return;
    let more = false;
    for (const [userId, account] of [...this.accounts]) if (await this.pushAccount(userId, account)) more = true;
    if (more) this.continuePasses();
  }

  /** A backlog is left: the next page goes after a turn of the event loop (unless a pass is queued already). */
  private continuePasses() {
    if (this.passQueued) return;
    this.passQueued = true;
    setImmediate(() => this.serially(() => this.pass()));
  }

  stop() {
    this.generation++;
    this.passQueued = false;
    this.catchUpQueued = false;
    this.joining.clear();
    onEventsCommitted(this.ctx, null);
    if (this.progressTimer) clearTimeout(this.progressTimer);
    if (this.stallTimer) clearTimeout(this.stallTimer);
    for (const account of this.accounts.values()) for (const ws of account.sockets) ws.close(CLOSE.going, "Server stopping");
    this.accounts.clear();
    this.catchingUp = [];
  }

  /** Whether the events (after, upTo] of one account are all still kept, and no more than MAX_REPLAY. */
  private async canReplay(userId: string, after: number, upTo: number): Promise<boolean> {
    if (after > upTo) return false;
    // Ids only grow: when the oldest event kept is newer than the one after `after`, something between was pruned.
    const oldest = (await readEvents(this.ctx, { afterId: 0, limit: 1 }))[0]?.id ?? upTo + 1;
    if (oldest > after + 1) return false;
    return (await countEvents(this.ctx, { userId, afterId: after, upTo, atMost: MAX_REPLAY + 1 })) <= MAX_REPLAY;
  }

  /**
   * Sends a socket what it missed, (its `sent`, the account's cursor], a page (PUSH_PAGE events) at a time, then
   * `ready`, and live frames from the same turn on (nothing between). A socket already at the cursor is greeted at
   * once; the others queue for `runCatchUps`. A socket whose buffer fills waits for `drained`, which goes on from
   * where it stopped; one that left is dropped.
   */
  private catchUp(ws: LiveSocket, account: Account) {
    if (ws.data.sent >= account.cursor) return this.greet(ws, account);
    this.catchingUp.push({ ws, account });
    if (this.catchUpQueued) return;
    this.catchUpQueued = true;
    setImmediate(() => this.serially(() => this.runCatchUps()));
  }

  /**
   * The sockets catching up, a page each in turn, for at most REPLAY_TURN_MS of a turn of the event loop: forty
   * sockets resuming at once neither hold up requests nor each other (each socket's page in one turn held the
   * loop for the forty pages' sends), and a client thousands of events behind is served between the others.
   */
  private async runCatchUps() {
    this.catchUpQueued = false;
    const started = performance.now();
    while (this.catchingUp.length && performance.now() - started < REPLAY_TURN_MS) {
      const next = this.catchingUp.shift()!;
      if (await this.catchUpPage(next.ws, next.account)) this.catchingUp.push(next);
    }
    if (this.catchingUp.length && !this.catchUpQueued) {
      this.catchUpQueued = true;
      setImmediate(() => this.serially(() => this.runCatchUps()));
    }
  }

  /** One page of a socket's catch-up (greeted once it has all); answers whether it has more to come. */
  private async catchUpPage(ws: LiveSocket, account: Account): Promise<boolean> {
    if (ws.data.stalledAt !== null || ws.readyState !== 1 || !account.sockets.has(ws)) return false;
    const upTo = account.cursor;
    if (ws.data.sent < upTo) {
      const page = await this.replayPage(ws.data.userId!, account, ws.data.sent, upTo);
      this.deliver(ws, page.frames, page.through);
      if (ws.data.stalledAt !== null) return false;
    }
    if (ws.data.sent < account.cursor) return true;
    this.greet(ws, account);
    return false;
  }

  /**
   * The next page of a replay from `after`: one an earlier socket had built over that event, while it is fresh
   * (the socket skips the frames it is past), or the next PUSH_PAGE events of the log, read and turned into frames
   * once for every socket that comes by within REPLAY_PAGE_TTL_MS.
   */
  private async replayPage(userId: string, account: Account, after: number, upTo: number): Promise<ReplayPage> {
    const now = this.ctx.now();
    let found: ReplayPage | undefined;
    for (const [key, page] of account.replayPages) {
      if (now - page.builtAt >= REPLAY_PAGE_TTL_MS) account.replayPages.delete(key);
      else if (!found && page.after <= after && after < page.through && page.through <= upTo) found = page;
    }
    if (found) {
      this.replayShared.pages++;
      return found;
    }
    const events = (await readEvents(this.ctx, { afterId: after, userId, limit: PUSH_PAGE })).filter((e) => e.id <= upTo);
    count(this.replayed, events.length);
    const through = events.length === PUSH_PAGE ? events.at(-1)!.id : upTo;
    const page = { after, through, frames: await this.framesOf(userId, events, true), builtAt: now };
    account.replayPages.set(after, page);
    // At most one full replay's pages are kept: the oldest built goes first.
    if (account.replayPages.size > MAX_REPLAY / PUSH_PAGE) account.replayPages.delete(account.replayPages.keys().next().value!);
    return page;
  }

  /**
   * Queues the frames the socket has not had, in order, until its buffer passes the limit; the rest stays in the
   * log for `drained`. Once all are queued, the socket stands at `upTo` (events that make no frame included).
   */
  private deliver(ws: LiveSocket, frames: Outgoing[], upTo: number) {
    const after = ws.data.sent;
    for (const frame of frames) {
      if (frame.eventId <= after) continue;
      if (!this.send(ws, frame.json)) return;
      ws.data.sent = frame.eventId;
      if (ws.data.stalledAt !== null) return;
    }
    ws.data.sent = Math.max(ws.data.sent, upTo);
  }

  /** Publishes one page (at most PUSH_PAGE) of the account's new events; answers whether more may be waiting. */
  private async pushAccount(userId: string, account: Account): Promise<boolean> {
    const events = await readEvents(this.ctx, { afterId: account.cursor, userId, limit: PUSH_PAGE });
    if (!events.length) return false;
    count(this.pushed, events.length);
    const frames = await this.framesOf(userId, events, false);
    // From here on nothing is awaited: the cursor, the page and the sockets' positions move together.
    account.cursor = events.at(-1)!.id;
    // A page of frames (at most ~1 MB) is queued whole, under Bun's own per-socket ceiling (16 MB); who went past
    // the limit with it leaves the topic and picks up after the page from the log.
    for (const frame of frames) this.server!.publish(account.topic, frame.json);
    for (const ws of account.sockets) {
      this.recheckSession(ws);
      if (!ws.data.live) continue;
      ws.data.sent = account.cursor;
      if (ws.getBufferedAmount() > this.sendBufferLimit) this.stall(ws);
    }
    return events.length === PUSH_PAGE;
  }

  /**
   * Frames in event order; a campaign's progress follows its last event of the batch. Live, a campaign whose
   * messages are moving gets at most one progress frame per PROGRESS_EVERY_MS (counting 100,000 rows per engine
   * batch would cost more than the sending); a replay carries each campaign's current state once per page.
   */
  private async framesOf(userId: string, events: AppEvent[], replay: boolean): Promise<Outgoing[]> {
    const lastOf = new Map<string, number>();
    for (const e of events) {
      const c = campaignOf(e);
      if (c) lastOf.set(c, e.id);
    }
    const frames: Outgoing[] = [];
    const now = this.ctx.now();
    for (const e of events) {
      const frame = await frameOf(this.ctx, userId, e);
      if (frame) frames.push(outgoing(frame));
      const c = campaignOf(e);
      if (!c || lastOf.get(c) !== e.id) continue;
      const milestone = e.type.startsWith("campaign.");
      if (replay || milestone || now - (this.progressSentAt.get(c) ?? 0) >= PROGRESS_EVERY_MS) {
        const progress = await progressFrame(this.ctx, userId, c, e.id);
        if (progress) frames.push(outgoing(progress));
        if (!replay) {
          this.progressSentAt.set(c, now);
          this.progressDue.delete(c);
        }
      } else {
        this.progressDue.set(c, { userId, eventId: e.id });
        this.progressTimer ??= setTimeout(() => {
          this.progressTimer = null;
          this.serially(() => this.flushProgress());
        }, PROGRESS_EVERY_MS);
      }
    }
    return frames;
  }

  /** The progress frames held back by the pace above, as the campaigns stand now. */
  private async flushProgress() {
    const due = [...this.progressDue];
    this.progressDue.clear();
    for (const [campaignId, { userId, eventId }] of due) {
      if (!this.accounts.has(userId)) continue;
      const frame = await progressFrame(this.ctx, userId, campaignId, eventId);
      const account = this.accounts.get(userId);
      if (!account) continue;
      this.progressSentAt.set(campaignId, this.ctx.now());
      // Sockets catching up get the campaign's state with the rest of their replay.
      if (frame) this.server!.publish(account.topic, JSON.stringify(frame));
    }
    // A finished campaign's pace entry is dropped once nothing is due for it.
    for (const [id, at] of this.progressSentAt) if (this.ctx.now() - at > PROGRESS_EVERY_MS * 4) this.progressSentAt.delete(id);
  }

  /** Sessions of the account were revoked: each of its sockets checks its own now (closed if it was one of them). */
  sessionsEnded(userId: string) {
    for (const ws of [...(this.accounts.get(userId)?.sockets ?? [])]) this.recheckSession(ws, true);
  }

  /** Checks the socket's session again when due (or forced): closed when it ended. Not awaited by the pushes. */
  private recheckSession(ws: LiveSocket, force = false) {
    const now = this.ctx.now();
    if (!force && now - ws.data.checkedAt < RECHECK_SESSION_MS) return;
    ws.data.checkedAt = now;
    // A token-less socket (authenticated by the Bearer header at the upgrade) keeps its token here too.
    const token = ws.data.token;
    (token ? this.sessionOf(token) : Promise.resolve(null)).then(
      (userId) => {
        if (userId === ws.data.userId) return;
        this.leave(ws);
        ws.close(CLOSE.unauthorized, "Session ended");
      },
      (err) => this.ctx.log(`live: session check: ${(err as Error)?.stack ?? err}`),
    );
  }

  /**
   * Queues a frame without waiting; false when the socket is closed or stalled. A socket whose unsent bytes pass
   * the limit stalls: nothing more is queued for it until it drains, and the stall sweep closes it if it does not.
   */
  private send(ws: LiveSocket, json: string): boolean {
    if (ws.readyState !== 1 || ws.data.stalledAt !== null) return false;
    ws.send(json);
    if (ws.getBufferedAmount() > this.sendBufferLimit) this.stall(ws);
    return true;
  }

  private stall(ws: LiveSocket) {
    if (ws.data.live) ws.unsubscribe(topicOf(ws.data.userId!));
    ws.data.live = false;
    ws.data.stalledAt = this.ctx.now();
    this.stallTimer ??= setTimeout(() => this.sweepStalled(), this.stallLimitMs);
  }

  /** Closes the sockets stalled for STALL_LIMIT_MS; one timer for all, armed only while a socket is stalled. */
  private sweepStalled() {
    this.stallTimer = null;
    const now = this.ctx.now();
    let waiting = false;
    for (const account of this.accounts.values()) {
      for (const ws of account.sockets) {
        if (ws.data.stalledAt === null) continue;
        if (now - ws.data.stalledAt >= this.stallLimitMs) this.closeSlow(ws);
        else waiting = true;
      }
    }
    if (waiting) this.stallTimer = setTimeout(() => this.sweepStalled(), this.stallLimitMs);
  }

  private closeSlow(ws: LiveSocket) {
    if (ws.data.live) ws.unsubscribe(topicOf(ws.data.userId!));
    ws.data.live = false;
    this.leave(ws);
    ws.close(CLOSE.slow, "Too slow: reconnect and resume");
  }
}
