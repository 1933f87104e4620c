import { useState } from "react";
import { useErrorReports } from "../../../api/admin";
import { Pagination } from "../../../components/pagination";
import { Alert, Card } from "../../../components/ui";
import { PAGE_SIZE, when } from "./shared";

/** Error reports the UI sent, newest first; a report opens to its stack. */
export function ErrorReportsTab() {
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<string | null>(null);
  const list = useErrorReports({ page, pageSize: PAGE_SIZE });
  return (
    <div className="space-y-2">
      {list.error && <Alert>{list.error.message}</Alert>}
      {list.data?.data.length === 0 && <p className="py-4 text-center text-slate-500">No error reports.</p>}
      {list.data?.data.map((r) => (
        <Card key={r.id} className="p-3">
          <button type="button" className="w-full text-left" onClick={() => setOpen(open === r.id ? null : r.id)}>
            <p className="font-medium text-red-700">{r.message}</p>
            <p className="text-xs text-slate-500">
              {when(r.createdAt)} · {r.type} · {r.url ?? "no url"} · {r.user?.email ?? "signed out"}
            </p>
          </button>
          {open === r.id && (
            <pre className="mt-2 max-h-80 overflow-auto whitespace-pre-wrap rounded bg-slate-50 p-2 text-xs">
              {r.stack ?? "No stack"}
              {"\n\n"}
              {r.userAgent}
            </pre>
          )}
        </Card>
      ))}
      {list.data && <Pagination page={page} total={list.data.total} pageSize={PAGE_SIZE} onPage={setPage} />}
    </div>
  );
}
