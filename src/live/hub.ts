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

type Account = { cursor: number; topic: string; sockets: Set<LiveSocket> };
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
  /** Exposed for tests: how long a socket may stay unauthenticated, and the slow-consumer bounds. */
  authTimeoutMs = 5000;
  sendBufferLimit = SEND_BUFFER_LIMIT;
  stallLimitMs = STALL_LIMIT_MS;

  constructor(
    private ctx: AppContext,
    private sessionOf: (token: string) => string | null,
  ) {}

  /** Sockets connected now, per account (for tests and the benchmark). */
  socketCount(userId?: string): number {
    if (userId) return this.accounts.get(userId)?.sockets.size ?? 0;
    let n = 0;
    for (const a of this.accounts.values()) n += a.sockets.size;
    return n;
  }

  /**
   * Adds an authenticated socket. From `resumeAfter` it is first sent what it missed, in order; without one it
   * starts at the newest event. Either way it is told where it stands (`ready`), or to refetch (`reset`) when
   * what it missed is no longer kept.
   */
  join(ws: LiveSocket, userId: string, resumeAfter: number | null) {
    // One page of the account's backlog first (PUSH_PAGE events, as any pass): a socket that starts at the cursor
    // is live from there, and the rest of the backlog reaches it published, a page per turn of the event loop.
    let account = this.accounts.get(userId);
    if (account) {
      if (this.pushAccount(userId, account)) this.continuePasses();
    } else {
      account = { cursor: lastEventId(this.ctx), topic: topicOf(userId), sockets: new Set() };
      this.accounts.set(userId, account);
      if (this.accounts.size === 1) onEventsCommitted(this.ctx, () => this.notify());
    }
    ws.data.userId = userId;
    const resuming = resumeAfter !== null && resumeAfter !== account.cursor;
    ws.data.sent = resuming ? resumeAfter : account.cursor;
    account.sockets.add(ws);
    if (resuming && !this.canReplay(userId, resumeAfter, account.cursor)) {
      ws.data.sent = account.cursor;
      ws.data.greeted = true;
      this.send(ws, JSON.stringify({ type: "reset", lastEventId: account.cursor }));
      this.goLive(ws, account);
    } else this.catchUp(ws, account);
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
    if (!this.canReplay(ws.data.userId!, ws.data.sent, account.cursor)) this.closeSlow(ws);
    else this.catchUp(ws, account);
  }

  leave(ws: LiveSocket) {
    if (ws.data.authTimer) clearTimeout(ws.data.authTimer);
    const userId = ws.data.userId;
    const account = userId ? this.accounts.get(userId) : undefined;
    if (!account || !account.sockets.delete(ws) || account.sockets.size) return;
    this.accounts.delete(userId!);
    if (!this.accounts.size) onEventsCommitted(this.ctx, null);
  }

  /** Events were committed: read them on the next microtask (one pass for a burst). */
  notify() {
    if (this.passQueued || !this.accounts.size) return;
    this.passQueued = true;
    queueMicrotask(() => this.pass());
  }

  /**
   * One page (at most PUSH_PAGE events) per account; a backlog (a burst, or the log written while the loop was
   * held up) goes on after a turn of the event loop, so requests (webhooks) are answered between pages instead of
   * waiting out the whole backlog.
   */
  private pass() {
    this.passQueued = false;
    // Every socket gone (or the server stopped, its database closed) since the pass was queued.
    if (!this.accounts.size) return;
    // A caller that appends outside bun:sqlite's synchronous transaction helper would still hold one open.
    if (this.ctx.db.$client.inTransaction) return void setImmediate(() => this.notify());
    let more = false;
    for (const [userId, account] of this.accounts) if (this.pushAccount(userId, account)) more = true;
    if (more) this.continuePasses();
  }

  /** A backlog is left: the next page goes after a turn of the event loop (unless a pass is queued already). */
  private continuePasses() {
    if (this.passQueued) return;
    this.passQueued = true;
    setImmediate(() => this.pass());
  }

  stop() {
    onEventsCommitted(this.ctx, null);
    if (this.progressTimer) clearTimeout(this.progressTimer);
    if (this.stallTimer) clearTimeout(this.stallTimer);
    for (const account of this.accounts.values()) for (const ws of account.sockets) ws.close(CLOSE.going, "Server stopping");
    this.accounts.clear();
  }

  /** Whether the events (after, upTo] of one account are all still kept, and no more than MAX_REPLAY. */
  private canReplay(userId: string, after: number, upTo: number): boolean {
    if (after > upTo) return false;
    // Ids only grow: when the oldest event kept is newer than the one after `after`, something between was pruned.
    const oldest = readEvents(this.ctx, { afterId: 0, limit: 1 })[0]?.id ?? upTo + 1;
    if (oldest > after + 1) return false;
    return countEvents(this.ctx, { userId, afterId: after, upTo, atMost: MAX_REPLAY + 1 }) <= MAX_REPLAY;
  }

  /**
   * Sends a socket what it missed, (its `sent`, the account's cursor], a page (PUSH_PAGE events) per turn of the
   * event loop, so a client thousands of events behind does not hold up requests and the other sockets; then
   * `ready`, and live frames from the same turn on (nothing between). A socket whose buffer fills waits for
   * `drained`, which goes on from where it stopped; one that left is dropped.
   */
  private catchUp(ws: LiveSocket, account: Account) {
    if (ws.data.stalledAt !== null || ws.readyState !== 1 || !account.sockets.has(ws)) return;
    const upTo = account.cursor;
    if (ws.data.sent < upTo) {
      const userId = ws.data.userId!;
      const page = readEvents(this.ctx, { afterId: ws.data.sent, userId, limit: PUSH_PAGE }).filter((e) => e.id <= upTo);
      const full = page.length === PUSH_PAGE;
      count(this.replayed, page.length);
      this.deliver(ws, this.framesOf(userId, page, true), full ? page.at(-1)!.id : upTo);
      if (ws.data.stalledAt !== null) return;
    }
    if (ws.data.sent < account.cursor) setImmediate(() => this.catchUp(ws, account));
    else this.greet(ws, account);
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
  private pushAccount(userId: string, account: Account): boolean {
    const events = readEvents(this.ctx, { afterId: account.cursor, userId, limit: PUSH_PAGE });
    if (!events.length) return false;
    count(this.pushed, events.length);
    account.cursor = events.at(-1)!.id;
    // A page of frames (at most ~1 MB) is queued whole, under Bun's own per-socket ceiling (16 MB); who went past
    // the limit with it leaves the topic and picks up after the page from the log.
    for (const frame of this.framesOf(userId, events, false)) this.server!.publish(account.topic, frame.json);
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
  private framesOf(userId: string, events: AppEvent[], replay: boolean): Outgoing[] {
    const lastOf = new Map<string, number>();
    for (const e of events) {
      const c = campaignOf(e);
      if (c) lastOf.set(c, e.id);
    }
    const frames: Outgoing[] = [];
    const now = this.ctx.now();
    for (const e of events) {
      const frame = frameOf(this.ctx, userId, e);
      if (frame) frames.push(outgoing(frame));
      const c = campaignOf(e);
      if (!c || lastOf.get(c) !== e.id) continue;
      const milestone = e.type.startsWith("campaign.");
      if (replay || milestone || now - (this.progressSentAt.get(c) ?? 0) >= PROGRESS_EVERY_MS) {
        const progress = progressFrame(this.ctx, userId, c, e.id);
        if (progress) frames.push(outgoing(progress));
        if (!replay) {
          this.progressSentAt.set(c, now);
          this.progressDue.delete(c);
        }
      } else {
        this.progressDue.set(c, { userId, eventId: e.id });
        this.progressTimer ??= setTimeout(() => this.flushProgress(), PROGRESS_EVERY_MS);
      }
    }
    return frames;
  }

  /** The progress frames held back by the pace above, as the campaigns stand now. */
  private flushProgress() {
    this.progressTimer = null;
    const due = [...this.progressDue];
    this.progressDue.clear();
    for (const [campaignId, { userId, eventId }] of due) {
      const account = this.accounts.get(userId);
      if (!account) continue;
      const frame = progressFrame(this.ctx, userId, campaignId, eventId);
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

  private recheckSession(ws: LiveSocket, force = false) {
    const now = this.ctx.now();
    if (!force && now - ws.data.checkedAt < RECHECK_SESSION_MS) return;
    ws.data.checkedAt = now;
    // A token-less socket (authenticated by the Bearer header at the upgrade) keeps its token here too.
    if (!ws.data.token || this.sessionOf(ws.data.token) !== ws.data.userId) {
      this.leave(ws);
      ws.close(CLOSE.unauthorized, "Session ended");
    }
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
