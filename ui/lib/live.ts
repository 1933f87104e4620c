import { effect, signal } from "@preact/signals-react";
import { useSignals } from "@preact/signals-react/runtime";
import { useEffect, useRef } from "react";
import type { LiveFrame as Frame } from "../../shared/live/frames";
import type { CampaignView } from "../api/campaigns";
import { auth, refreshUser } from "./auth";

/**
 * Live updates over the WebSocket at /ws (src/live/). One connection per page while someone is signed in: the browser
 * sends the httpOnly session cookie with the upgrade, which authenticates it (the page never sees the token); it
 * remembers the newest event id it saw and resumes after it when it reconnects, so nothing sent while it was away is lost.
 * It reconnects for as long as the page is open, waiting 1 s, then twice as long each time, at most 30 s.
 *
 *   const off = subscribe("new_message", (m) => ...);   // returns the unsubscribe
 *   liveState.value === "connected"                     // the green dot
 */

/** A frame as the browser reads it: a campaign's progress is the campaign as the list answers it. */
export type LiveFrame = Frame<CampaignView>;
export type LiveFrameType = LiveFrame["type"];
/**
 * `reset`: the server no longer has everything since this page's last event, or (reason `replay_limit`) the account
 * resumed more often this minute than it replays; refetch what is on screen.
 */
export type LiveEventType = LiveFrameType | "reset";
export type ResetFrame = { type: "reset"; lastEventId: number; reason?: "replay_limit" };
type Payload<T extends LiveEventType> = T extends LiveFrameType ? Extract<LiveFrame, { type: T }> : ResetFrame;

export type LiveState = "offline" | "connecting" | "connected";
export const liveState = signal<LiveState>("offline");

// The server's close codes (src/live/hub.ts CLOSE).
const UNAUTHORIZED = 4401;
const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 30_000;

const handlers = new Map<LiveEventType, Set<(frame: never) => void>>();
let socket: WebSocket | null = null;
let lastEventId: number | null = null;
let delayMs = FIRST_DELAY_MS;
let retryTimer: ReturnType<typeof setTimeout> | null = null;
let wanted = false;
let started = false;

/** Calls `handler` with every frame of `type` until the returned function is called. Starts the connection. */
export function subscribe<T extends LiveEventType>(type: T, handler: (frame: Payload<T>) => void): () => void {
  startLive();
  let set = handlers.get(type);
  if (!set) handlers.set(type, (set = new Set()));
  set.add(handler as (frame: never) => void);
  return () => void set.delete(handler as (frame: never) => void);
}

function dispatch(type: LiveEventType, frame: unknown) {
  for (const handler of handlers.get(type) ?? []) {
    try {
      (handler as (f: unknown) => void)(frame);
    } catch (err) {
      // One screen's failing handler must not keep the others from their frames.
      console.error(err);
    }
  }
}

/** Connects while someone is signed in and disconnects when they sign out; called once, by the first subscriber. */
export function startLive() {
  if (started || typeof WebSocket === "undefined") return;
  started = true;
  effect(() => {
    const signedIn = auth.value.status === "signed-in";
    if (signedIn && !wanted) {
      wanted = true;
      connect();
    } else if (!signedIn && wanted) {
      wanted = false;
      lastEventId = null;
      disconnect();
    }
  });
  // Back online or back to the tab: try now rather than at the end of a long wait.
  const retryNow = () => {
    if (wanted && !socket && retryTimer) {
      clearTimeout(retryTimer);
      retryTimer = null;
      connect();
    }
  };
  window.addEventListener("online", retryNow);
  document.addEventListener("visibilitychange", () => document.visibilityState === "visible" && retryNow());
}

function connect() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  socket = ws;
  liveState.value = "connecting";
  ws.onopen = () => {
    ws.send(JSON.stringify(lastEventId === null ? { type: "resume" } : { type: "resume", lastEventId }));
  };
  ws.onmessage = (message) => {
    let frame: { type: string; eventId?: number; lastEventId?: number };
    try {
      frame = JSON.parse(String(message.data));
    } catch {
      return;
    }
    if (frame.type === "ready" || frame.type === "reset") {
      lastEventId = frame.lastEventId ?? lastEventId;
      delayMs = FIRST_DELAY_MS;
      liveState.value = "connected";
      if (frame.type === "reset") dispatch("reset", frame);
      return;
    }
    // A campaign's progress may be sent after newer frames (it is paced): the resume point only moves forward.
    if (typeof frame.eventId === "number") lastEventId = Math.max(lastEventId ?? 0, frame.eventId);
    dispatch(frame.type as LiveFrameType, frame);
  };
  ws.onclose = (event) => {
    if (socket !== ws) return;
    socket = null;
    liveState.value = "offline";
    if (!wanted) return;
    // A session that ended signs the page out (which stops the retries); otherwise keep trying.
    if (event.code === UNAUTHORIZED) void refreshUser();
    retryTimer = setTimeout(() => {
      retryTimer = null;
      if (wanted) connect();
    }, delayMs);
    delayMs = Math.min(MAX_DELAY_MS, delayMs * 2);
  };
}

function disconnect() {
  if (retryTimer) clearTimeout(retryTimer);
  retryTimer = null;
  delayMs = FIRST_DELAY_MS;
  const ws = socket;
  socket = null;
  ws?.close();
  liveState.value = "offline";
}

/**
 * For screens that used to poll: calls `refresh` when a frame of `types` arrives (matching `when`, at most once a
 * second) and after a reset. Answers `pollMs` while the socket is down, so the screen polls only then.
 */
export function useLiveRefresh<T extends LiveFrameType>(
  types: T[],
  refresh: () => unknown,
  opts: { pollMs?: number; when?: (frame: Payload<T>) => boolean } = {},
): number | undefined {
  useSignals();
  const latest = useRef({ refresh, when: opts.when });
  latest.current = { refresh, when: opts.when };
  const key = types.join(",");
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    let lastRun = 0;
    const run = () => {
      timer = null;
      lastRun = Date.now();
      void latest.current.refresh();
    };
    const soon = () => {
      if (!timer) timer = setTimeout(run, Math.max(0, lastRun + 1000 - Date.now()));
    };
    const offs = (key.split(",") as T[]).map((type) =>
      subscribe(type, (frame) => {
        if (!latest.current.when || latest.current.when(frame)) soon();
      }),
    );
    offs.push(subscribe("reset", soon));
    return () => {
      offs.forEach((off) => off());
      if (timer) clearTimeout(timer);
    };
  }, [key]);
  return liveState.value === "connected" ? undefined : opts.pollMs;
}
