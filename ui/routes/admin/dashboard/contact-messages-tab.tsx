import { useState } from "react";
import { markContactMessage, useContactMessages, type ContactMessage } from "../../../api/admin";
import { Pagination } from "../../../components/pagination";
import { Alert, Button, Card, Select } from "../../../components/ui";
import { failed, PAGE_SIZE, when } from "./shared";

/** Messages from the open contact form, open or handled; marking one handled (or open again). */
export function ContactMessagesTab() {
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState("open");
  const list = useContactMessages({ status, page, pageSize: PAGE_SIZE });
  const mark = async (m: ContactMessage, handled: boolean) => {
    try {
      await markContactMessage(m.id, handled);
      void list.reload();
    } catch (err) {
      failed(err, "Failed to update the message");
    }
  };
  return (
    <div className="space-y-3">
      <Select
        aria-label="Message status"
        className="max-w-48"
        value={status}
        onChange={(e) => {
          setPage(1);
          setStatus(e.target.value);
        }}
      >
        <option value="open">Open</option>
        <option value="handled">Handled</option>
        <option value="">All</option>
      </Select>
      {list.error && <Alert>{list.error.message}</Alert>}
      {list.data?.data.length === 0 && <p className="py-4 text-center text-slate-500">No messages.</p>}
      {list.data?.data.map((m) => (
        <Card key={m.id} className="space-y-1 p-3">
          <div className="flex items-start justify-between gap-3">
            <div>
              <p className="font-medium">{m.subject}</p>
              <p className="text-xs text-slate-500">
                {m.name} &lt;{m.email}&gt;{m.company ? ` · ${m.company}` : ""} · {m.priority} · {when(m.createdAt)}
              </p>
            </div>
            {m.handledAt ? (
              <Button variant="ghost" onClick={() => mark(m, false)}>
                Reopen
              </Button>
            ) : (
              <Button variant="secondary" onClick={() => mark(m, true)}>
                Mark handled
              </Button>
            )}
          </div>
          <p className="whitespace-pre-wrap text-sm text-slate-700">{m.message}</p>
        </Card>
      ))}
      {list.data && <Pagination page={page} total={list.data.total} pageSize={PAGE_SIZE} onPage={setPage} />}
    </div>
  );
}
