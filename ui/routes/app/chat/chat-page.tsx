import { useSignals } from "@preact/signals-react/runtime";
import { Link, useNavigate } from "@tanstack/react-router";
import { useEffect, useState } from "react";
import {
  bulkArchiveConversations,
  bulkDeleteConversations,
  bulkReadConversations,
  dismissPossibleOptOut,
  markConversationUnread,
  optOutConversation,
  setConversationState,
  useConversation,
  useConversations,
  type ConversationFilter,
  type ConversationView,
} from "../../../api/conversations";
import { Badge } from "../../../components/badge";
import { ConversationSummary } from "../../../components/chat-avatar";
import { ConnectionDot } from "../../../components/chat-connection";
import { liveConnected } from "../../../components/chat-live";
import { changed, inboxVersion, onChatPage, pageThread, pageThreadRequest, popup } from "../../../components/chat-store";
import { ChatThread } from "../../../components/chat-thread";
import { useConfirm } from "../../../components/confirm-dialog";
import { Menu } from "../../../components/menu";
import { Pagination } from "../../../components/pagination";
import { TabPanel, Tabs } from "../../../components/tabs";
import { Button, Card, Input, cx } from "../../../components/ui";
import { errorMessage } from "../../../lib/api";
import { auth } from "../../../lib/auth";
import { toast } from "../../../lib/toast";
import { useMutation } from "../../../lib/use-mutation";
import { formatPhone } from "../contacts/model";
import { ContactPanel } from "./contact-panel";

const PAGE_SIZE = 50;
/** Only while the socket is down; pushes keep the list current otherwise. */
const FALLBACK_POLL_MS = 5000;

type Filter = Extract<ConversationFilter, "all" | "unread" | "open" | "archived">;
const TABS: { value: Filter; label: string }[] = [
  { value: "all", label: "Inbox" },
  { value: "unread", label: "Unread" },
  { value: "open", label: "Open" },
  { value: "archived", label: "Archived" },
];

export const ChatPage = () => <Conversations archived={false} />;
export const ArchivedChatPage = () => <Conversations archived />;

/** /chat and /chat/archived: the conversations, one thread, and the contact behind it. */
function Conversations({ archived }: { archived: boolean }) {
  useSignals();
  const user = auth.value.user!;
  const navigate = useNavigate();
  const version = inboxVersion.value;
  const connected = liveConnected.value;
  const [filter, setFilter] = useState<Filter>(archived ? "archived" : "all");
  const [search, setSearch] = useState("");
  const [q, setQ] = useState("");
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [openId, setOpenId] = useState<number | null>(null);
  const [showContact, setShowContact] = useState(false);
  const { ask, dialog } = useConfirm();

  useEffect(() => setFilter(archived ? "archived" : "all"), [archived]);
  useEffect(() => {
    const t = setTimeout(() => {
      setQ(search.trim());
      setPage(1);
    }, 250);
    return () => clearTimeout(t);
  }, [search]);

  const list = useConversations({ page, pageSize: PAGE_SIZE, filter, q }, connected ? undefined : FALLBACK_POLL_MS);
  useEffect(() => {
    if (version) void list.reload();
  }, [version]); // eslint-disable-line react-hooks/exhaustive-deps
  const rows = list.data?.data ?? [];

  // The thread on screen: an inbound text to it needs no popup.
  useEffect(() => {
    pageThread.value = openId;
    return () => {
      pageThread.value = null;
    };
  }, [openId]);
  // On this page an inbound text shows a toast, whose action opens its thread here, never the popup over it.
  useEffect(() => {
    onChatPage.value = true;
    // A popup an inbound text opened on another page does not follow the user over this page's thread.
    if (popup.value.open && popup.value.auto) popup.value = { ...popup.value, open: false };
    return () => {
      onChatPage.value = false;
    };
  }, []);
  const requested = pageThreadRequest.value;
  useEffect(() => {
    if (requested === null) return;
    pageThreadRequest.value = null;
    setOpenId(requested);
  }, [requested]);

  const chooseFilter = (f: Filter) => {
    setSelected(new Set());
    setPage(1);
    if (f === "archived" && !archived) return void navigate({ to: "/chat/archived" });
    if (f !== "archived" && archived) {
      void navigate({ to: "/chat" });
      return setFilter(f);
    }
    setFilter(f);
  };

  const toggle = (id: number) =>
    setSelected((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  /** `leaves`: the open thread, if selected, is closed (archived, deleted, or unread: it would be read again at once). */
  const bulk = useMutation((run: () => Promise<{ message: string }>, _leaves: boolean) => run(), {
    onSuccess: (_answer, _run, leaves) => {
      if (leaves && openId !== null && selected.has(openId)) setOpenId(null);
      setSelected(new Set());
      changed();
    },
    success: (answer) => answer.message,
    fallback: "Failed to update conversations",
    failureToast: "Error",
  });
  const busy = bulk.busy;
  const count = (n: number) => `${n} conversation${n === 1 ? "" : "s"}`;
  const archiveSelected = () => void bulk.run(() => bulkArchiveConversations([...selected], !archived), true);
  const readSelected = (read: boolean) => void bulk.run(() => bulkReadConversations([...selected], read), !read);
  const deleteSelected = async () => {
    const ok = await ask({
      title: "Delete conversations",
      message: `Delete ${count(selected.size)} and their messages? This cannot be undone. The contacts are kept.`,
      confirmLabel: "Delete",
    });
    if (ok) await bulk.run(() => bulkDeleteConversations([...selected]), true);
  };

  const thread = openId !== null;
  return (
    <div className="space-y-4">
      <header className="flex flex-wrap items-center justify-between gap-2">
        <div>
          <h1 className="text-2xl font-bold">{archived ? "Archived Conversations" : "Chat & Replies"}</h1>
          <p className="text-sm text-slate-600">
            {archived
              ? "Conversations moved out of the inbox. A new reply brings one back."
              : "Read and answer your contacts' texts."}
          </p>
        </div>
        <ConnectionDot withLabel />
      </header>

      <Card className="flex h-[calc(100vh-12rem)] min-h-[28rem] overflow-hidden">
        {/* The list: always on wide screens, alone on a phone until a conversation is chosen. */}
        <div
          className={cx("flex w-full min-w-0 flex-col border-r border-slate-200 md:w-80 md:shrink-0", thread && "hidden md:flex")}
        >
          <div className="space-y-2 border-b border-slate-200 p-3">
            <Tabs idPrefix="chat" label="Conversations" value={filter} onChange={chooseFilter} tabs={TABS} variant="pill" fill />
            <Input
              type="search"
              aria-label="Search conversations"
              placeholder="Search name, phone or message"
              value={search}
              onChange={(e) => setSearch(e.target.value)}
            />
            {rows.length > 0 && (
              <div className="flex items-center gap-2 text-xs">
                <label className="flex items-center gap-1.5 text-slate-600">
                  <input
                    type="checkbox"
                    checked={rows.every((c) => selected.has(c.id))}
                    onChange={(e) => setSelected(e.target.checked ? new Set(rows.map((c) => c.id)) : new Set())}
                  />
                  {selected.size ? `${selected.size} selected` : "Select all"}
                </label>
                {selected.size > 0 && (
                  <span className="ml-auto flex flex-wrap justify-end gap-1">
                    <Button variant="secondary" className="px-2 py-1 text-xs" disabled={busy} onClick={() => readSelected(true)}>
                      Mark read
                    </Button>
                    <Button variant="secondary" className="px-2 py-1 text-xs" disabled={busy} onClick={() => readSelected(false)}>
                      Mark unread
                    </Button>
                    <Button variant="secondary" className="px-2 py-1 text-xs" disabled={busy} onClick={archiveSelected}>
                      {archived ? "Move to inbox" : "Archive"}
                    </Button>
                    <Button variant="danger" className="px-2 py-1 text-xs" disabled={busy} onClick={() => void deleteSelected()}>
                      Delete
                    </Button>
                  </span>
                )}
              </div>
            )}
          </div>
          <TabPanel idPrefix="chat" value={filter} className="min-h-0 flex-1 overflow-y-auto">
            {list.error && <p className="p-3 text-sm text-red-600">Could not load conversations: {list.error.message}</p>}
            {list.data && rows.length === 0 && (
              <p className="p-6 text-center text-sm text-slate-500">
                {q ? `No conversations match “${q}”.` : archived ? "No archived conversations." : "No conversations yet"}
              </p>
            )}
            <ul aria-label="Conversation list" className="divide-y divide-slate-100">
              {rows.map((c) => (
                <li key={c.id} className={cx("flex items-center gap-2 px-3", openId === c.id && "bg-brand-50")}>
                  <input
                    type="checkbox"
                    aria-label={`Select ${c.contactName}`}
                    checked={selected.has(c.id)}
                    onChange={() => toggle(c.id)}
                  />
                  <button
                    type="button"
                    className="flex min-w-0 flex-1 items-center py-2 text-left"
                    aria-current={openId === c.id ? "true" : undefined}
                    onClick={() => setOpenId(c.id)}
                  >
                    <ConversationSummary c={c} formatPhone={formatPhone} />
                  </button>
                  {c.possibleOptOut && (
                    <Badge tone="red" className="shrink-0">
                      Possible opt-out
                    </Badge>
                  )}
                </li>
              ))}
            </ul>
            {(list.data?.total ?? 0) > PAGE_SIZE && (
              <Pagination page={page} pageSize={PAGE_SIZE} total={list.data!.total} onPage={setPage} locale={user.locale} />
            )}
          </TabPanel>
        </div>

        <div className={cx("min-w-0 flex-1 flex-col", thread ? "flex" : "hidden md:flex")}>
          {openId === null ? (
            <div className="flex flex-1 items-center justify-center p-6 text-sm text-slate-500">
              Select a conversation to start chatting
            </div>
          ) : (
            <OpenThread
              id={openId}
              showContact={showContact}
              onToggleContact={() => setShowContact((v) => !v)}
              onBack={() => setOpenId(null)}
              dateFormat={user.dateFormat}
              timeZone={user.timezone}
            />
          )}
        </div>
      </Card>
      {!archived && (
        <p className="text-sm">
          <Link to="/chat/archived" className="text-brand-700 hover:underline">
            Archived conversations →
          </Link>
        </p>
      )}
      {dialog}
    </div>
  );
}

function OpenThread({
  id,
  showContact,
  onToggleContact,
  onBack,
  dateFormat,
  timeZone,
}: {
  id: number;
  showContact: boolean;
  onToggleContact: () => void;
  onBack: () => void;
  dateFormat: string;
  timeZone: string;
}) {
  useSignals();
  const version = inboxVersion.value;
  const conversation = useConversation(id);
  useEffect(() => {
    if (version) void conversation.reload();
  }, [version]); // eslint-disable-line react-hooks/exhaustive-deps
  const c = conversation.data;
  if (conversation.error) return <p className="p-4 text-sm text-red-600">{conversation.error.message}</p>;
  if (!c) return null;

  // Closed once marked: left open, the thread would mark itself read again.
  const markUnread = async () => {
    try {
      await markConversationUnread(c.id);
      toast({ title: "Conversation marked unread" });
      onBack();
      changed();
    } catch (err) {
      toast({ title: "Error", description: errorMessage(err, "Failed to mark the conversation unread"), variant: "destructive" });
    }
  };

  const setState = async (state: ConversationView["state"], done: string) => {
    try {
      await setConversationState(c.id, state);
      toast({ title: done });
      changed();
    } catch (err) {
      toast({ title: "Error", description: errorMessage(err, "Failed to update the conversation"), variant: "destructive" });
    }
  };

  return (
    <div className="relative flex min-h-0 flex-1">
      <div className="flex min-w-0 flex-1 flex-col">
        <div className="flex items-center gap-2 border-b border-slate-200 px-3 py-2">
          <button
            type="button"
            aria-label="Back to conversations"
            className="rounded p-1 hover:bg-slate-100 md:hidden"
            onClick={onBack}
          >
            ←
          </button>
          <div className="min-w-0 flex-1">
            <h2 className="truncate font-semibold" data-testid="thread-name">
              {c.contactName !== c.phone ? c.contactName : formatPhone(c.phone)}
            </h2>
            <p className="truncate text-xs text-slate-500">{formatPhone(c.phone)}</p>
          </div>
          {c.state !== "open" && (
            <Badge tone={c.state === "archived" ? "amber" : "slate"}>{c.state === "archived" ? "Archived" : "Closed"}</Badge>
          )}
          <Button
            variant="secondary"
            className="px-2 py-1 text-xs xl:hidden"
            aria-expanded={showContact}
            onClick={onToggleContact}
          >
            Contact
          </Button>
          <Menu
            label="Conversation actions"
            items={[
              { label: "Mark unread", onSelect: () => void markUnread() },
              c.state === "open"
                ? { label: "Close conversation", onSelect: () => void setState("closed", "Conversation closed") }
                : { label: "Move to inbox", onSelect: () => void setState("open", "Conversation reopened") },
              ...(c.state !== "archived"
                ? [{ label: "Archive conversation", onSelect: () => void setState("archived", "Conversation archived") }]
                : []),
            ]}
          />
        </div>
        {c.possibleOptOut && <PossibleOptOut c={c} onDone={() => void conversation.reload()} />}
        <ChatThread conversationId={c.id} phone={c.phone} optedOut={c.optedOut} timeZone={timeZone} />
      </div>
      <div
        className={cx(
          "w-full max-w-72 shrink-0 overflow-y-auto border-l border-slate-200 bg-white",
          showContact ? "absolute inset-y-0 right-0 z-10 shadow-xl xl:static xl:shadow-none" : "hidden xl:block",
        )}
      >
        <ContactPanel conversation={c} dateFormat={dateFormat} timeZone={timeZone} onChanged={() => void conversation.reload()} />
      </div>
    </div>
  );
}

/**
 * A text the plain-words matcher was unsure of (shared/keywords/plain-opt-out.ts): the owner opts the contact out in one
 * click (as STOP does, with its confirmation within 5 minutes of the text) or dismisses the mark.
 */
function PossibleOptOut({ c, onDone }: { c: ConversationView; onDone: () => void }) {
  const done = () => {
    onDone();
    changed();
  };
  const optOut = useMutation(async () => (await optOutConversation(c.id)).message, {
    onSuccess: done,
    success: (message) => message,
    fallback: "Failed to opt the contact out",
    failureToast: "Error",
  });
  const dismiss = useMutation(() => dismissPossibleOptOut(c.id), {
    onSuccess: done,
    success: "Marked as no opt-out",
    fallback: "Failed to dismiss the mark",
    failureToast: "Error",
  });
  const busy = optOut.busy || dismiss.busy;
  return (
    <div role="region" aria-label="Possible opt-out" className="space-y-2 border-b border-red-200 bg-red-50 px-3 py-2 text-sm">
      <p className="flex items-start gap-2">
        <Badge tone="red" className="mt-0.5">
          Possible opt-out
        </Badge>
        <span className="min-w-0 break-words text-slate-800">“{c.possibleOptOut!.content}”</span>
      </p>
      <div className="flex flex-wrap items-center gap-2">
        <Button variant="danger" className="px-2 py-1 text-xs" disabled={busy} onClick={() => void optOut.run()}>
          Opt out
        </Button>
        <Button variant="secondary" className="px-2 py-1 text-xs" disabled={busy} onClick={() => void dismiss.run()}>
          Dismiss
        </Button>
        <span className="text-xs text-slate-600">Opt out sends the STOP confirmation only within 5 minutes of their text.</span>
      </div>
    </div>
  );
}
