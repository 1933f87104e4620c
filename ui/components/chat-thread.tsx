import { useCallback, useEffect, useRef, useState } from "react";
import { fetchThread, markConversationRead, sendChatMessage, useThread, type ThreadMessage } from "../api/conversations";
import { errorMessage } from "../lib/api";
import { toast } from "../lib/toast";
import { useMutation } from "../lib/use-mutation";
import { ChatBubbles } from "./chat-bubbles";
import { ChatComposer } from "./chat-composer";
import { useLiveEvent } from "./chat-live";
import { changed } from "./chat-store";
import { Spinner } from "./ui";

/** Messages per page of history; a catch-up reads bigger pages. */
const PAGE = 50;
const CATCH_UP_PAGE = 200;

/** Merges messages into a thread by id (a live push and a fetch may bring the same one), kept in server order. */
function merge(current: ThreadMessage[], incoming: ThreadMessage[]): ThreadMessage[] {
  if (!incoming.length) return current;
  const byId = new Map(current.map((m) => [m.id, m]));
  for (const m of incoming) byId.set(m.id, m);
  return [...byId.values()].sort((a, b) => a.seq - b.seq);
}

/**
 * One conversation's messages and the reply box. It loads the newest page, then keeps up through the socket: a new
 * message fetches what came after the last one it has (so nothing is missed or doubled), a status change updates its
 * bubble. What it shows of the contact's inbound texts is marked read while the page is visible.
 */
export function ChatThread({
  conversationId,
  phone,
  optedOut = false,
  compact = false,
  timeZone,
  emptyText,
  emptyHint,
  awaitInteraction = false,
  onSent,
}: {
  /** Null before the first message to this phone: the first reply creates the conversation. */
  conversationId: number | null;
  phone: string;
  optedOut?: boolean;
  compact?: boolean;
  timeZone?: string;
  emptyText?: string;
  emptyHint?: string;
  /** Opened by an inbound text, not by the user: nothing is marked read until they click or type in it. */
  awaitInteraction?: boolean;
  onSent?: (message: ThreadMessage) => void;
}) {
  const [messages, setMessages] = useState<ThreadMessage[]>([]);
  const [hasOlder, setHasOlder] = useState(false);
  const lastSeq = useRef(0);
  lastSeq.current = messages.at(-1)?.seq ?? 0;

  // The newest page, read again for each conversation; what it brings is the thread until pushes and earlier pages
  // join it.
  const newest = useThread(conversationId, { limit: PAGE });
  const loading = conversationId !== null && newest.loading;
  const error = conversationId !== null && newest.error ? errorMessage(newest.error, "Could not load messages") : null;
  useEffect(() => {
    setMessages([]);
    setHasOlder(false);
  }, [conversationId]);
  useEffect(() => {
    if (!newest.data) return;
    setMessages(newest.data);
    setHasOlder(newest.data.length === PAGE);
  }, [newest.data]);

  /** What came after the newest message held: after a push, or a reconnect that may have missed some. */
  const catchUp = useCallback(async () => {
    if (conversationId === null) return;
    try {
      // A long time away may have left more than one page: read on until a page comes back short.
      for (;;) {
        const rows = await fetchThread(conversationId, { after: lastSeq.current, limit: CATCH_UP_PAGE });
        lastSeq.current = Math.max(lastSeq.current, rows.at(-1)?.seq ?? 0);
        setMessages((cur) => merge(cur, rows));
        if (rows.length < CATCH_UP_PAGE) break;
      }
    } catch {
      // The next push or reconnect asks again.
    }
  }, [conversationId]);

  // An earlier page is read on a click: the hook gives its spinner, ignores a second click and toasts a failure.
  const older = useMutation((before: number) => fetchThread(conversationId!, { before, limit: PAGE }), {
    onSuccess: (rows) => {
      setMessages((cur) => merge(cur, rows));
      setHasOlder(rows.length === PAGE);
    },
    fallback: "Could not load earlier messages",
    failureToast: "Error",
  });
  const loadOlder = () => {
    const first = messages[0]?.seq;
    if (conversationId !== null && first !== undefined) void older.run(first);
  };

  useLiveEvent("new_message", (m) => {
    if (m.conversationId !== conversationId) return;
    // The next one in order joins at once; after a gap, the thread reads what it missed.
    if (m.message.seq <= lastSeq.current + 1) setMessages((cur) => merge(cur, [m.message]));
    else void catchUp();
  });
  useLiveEvent("reset", () => void catchUp());
  useLiveEvent("message_status", (s) => {
    const ids = new Set(s.messageIds ?? (s.messageId ? [s.messageId] : []));
    setMessages((cur) =>
      cur.some((m) => ids.has(m.id))
        ? cur.map((m) =>
            ids.has(m.id)
              ? { ...m, status: s.status, errorCode: s.errorCode ?? m.errorCode, errorMessage: s.errorMessage ?? m.errorMessage }
              : m,
          )
        : cur,
    );
  });

  // Read once seen: the newest inbound message shown, while the tab is visible and focused, and (for a thread a push
  // opened by itself) once the user has touched it; a popup that opened while they were away keeps it unread.
  const [engaged, setEngaged] = useState(!awaitInteraction);
  useEffect(() => setEngaged(!awaitInteraction), [conversationId, awaitInteraction]);
  const newestInbound = messages.findLast((m) => m.direction === "inbound")?.seq ?? 0;
  const marked = useRef(0);
  useEffect(() => {
    marked.current = 0;
  }, [conversationId]);
  useEffect(() => {
    if (conversationId === null || !engaged || newestInbound <= marked.current) return;
    const mark = () => {
      if (document.visibilityState !== "visible" || !document.hasFocus() || newestInbound <= marked.current) return;
      marked.current = newestInbound;
      markConversationRead(conversationId, newestInbound)
        .then(() => changed())
        .catch(() => {
          marked.current = 0;
        });
    };
    mark();
    document.addEventListener("visibilitychange", mark);
    window.addEventListener("focus", mark);
    return () => {
      document.removeEventListener("visibilitychange", mark);
      window.removeEventListener("focus", mark);
    };
  }, [conversationId, newestInbound, engaged]);

  const send = async (content: string, key: string, mediaIds: string[]) => {
    try {
      const sent = await sendChatMessage({ phone, content, ...(mediaIds.length ? { mediaIds } : {}) }, key);
      setMessages((cur) => merge(cur, [sent]));
      onSent?.(sent);
    } catch (err) {
      toast({
        title: "Error",
        description: errorMessage(err, "Failed to send message. Please try again."),
        variant: "destructive",
      });
      throw err;
    }
  };

  return (
    <div
      className="flex min-h-0 flex-1 flex-col bg-slate-50"
      onPointerDown={() => setEngaged(true)}
      onFocus={() => setEngaged(true)}
      onKeyDown={() => setEngaged(true)}
    >
      {loading ? (
        <div className="flex flex-1 items-center justify-center gap-2 text-sm text-slate-500">
          <Spinner /> Loading messages...
        </div>
      ) : error ? (
        <p className="flex-1 p-4 text-sm text-red-600">{error}</p>
      ) : (
        <ChatBubbles
          messages={messages}
          timeZone={timeZone}
          emptyText={emptyText}
          emptyHint={emptyHint}
          older={hasOlder ? { loading: older.busy, load: loadOlder } : undefined}
        />
      )}
      <ChatComposer
        onSend={send}
        compact={compact}
        disabled={optedOut}
        disabledReason={optedOut ? "This contact opted out. They can text START to receive messages again." : undefined}
      />
    </div>
  );
}
