import { useEffect, useRef, useState, type DragEvent } from "react";
import { Alert, Button, cx, Modal } from "../../../components/ui";
import { api, errorMessage } from "../../../lib/api";
import { formatNumber } from "../../../lib/format";
import { toast } from "../../../lib/toast";
import { SAMPLE_CSV, saveBlob, uploadCsv, type ImportJob } from "./model";

type Phase = { kind: "idle" } | { kind: "uploading"; fraction: number } | { kind: "importing"; job: ImportJob | null } | { kind: "done"; job: ImportJob };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Progress as a percentage, whether the server reports 0..100 or 0..1. */
const percent = (job: ImportJob | null) => {
  if (!job) return 0;
  if (job.state === "done") return 100;
  const p = job.progress ?? 0;
  return Math.max(0, Math.min(100, p <= 1 && p > 0 && !Number.isInteger(p) ? p * 100 : p));
};

export function importSummary(job: ImportJob, locale?: string): string {
  const n = (v: number) => formatNumber(v ?? 0, locale);
  const parts = [`Import completed: ${n(job.created)} new contacts added`];
  if (job.updated) parts.push(`${n(job.updated)} updated`);
  if (job.duplicates) parts.push(`${n(job.duplicates)} duplicates skipped`);
  if (job.invalid) parts.push(`${n(job.invalid)} invalid rows`);
  return parts.join(", ");
}

export function ImportDialog({
  open,
  onClose,
  onImported,
  locale,
}: {
  open: boolean;
  onClose: () => void;
  onImported: () => void;
  locale: string;
}) {
  const [phase, setPhase] = useState<Phase>({ kind: "idle" });
  const [error, setError] = useState("");
  const [dragging, setDragging] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const alive = useRef(true);

  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
    };
  }, []);
  useEffect(() => {
    if (open && phase.kind === "done") setPhase({ kind: "idle" });
    if (open) setError("");
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);

  const busy = phase.kind === "uploading" || phase.kind === "importing";

  const start = async (file: File | undefined) => {
    if (!file || busy) return;
    if (!file.name.toLowerCase().endsWith(".csv")) {
      setError("Please select a CSV file");
      return;
    }
    setError("");
    setPhase({ kind: "uploading", fraction: 0 });
    try {
      const { id } = await uploadCsv(file, (fraction) => alive.current && setPhase({ kind: "uploading", fraction }));
      setPhase({ kind: "importing", job: null });
      let job: ImportJob;
      for (;;) {
        await sleep(500);
        job = await api<ImportJob>(`/api/contacts/import/${id}`);
        if (!alive.current) return;
        if (job.state === "done" || job.state === "failed") break;
        setPhase({ kind: "importing", job });
      }
      if (job.state === "failed") {
        setPhase({ kind: "idle" });
        setError(job.error || "Failed to import contacts");
        toast({ title: "Error", description: job.error || "Failed to import contacts", variant: "destructive" });
        onImported();
        return;
      }
      setPhase({ kind: "done", job });
      onImported();
      const warnings = job.duplicates > 0 || job.invalid > 0;
      toast({ title: warnings ? "Import Complete with Warnings" : "Success", description: importSummary(job, locale), durationMs: 6000 });
      if (job.duplicates > 0) {
        const dupes = job.duplicates;
        setTimeout(
          () =>
            toast({
              title: "Duplicates Detected",
              description: `${formatNumber(dupes, locale)} rows had a phone number that is already in your list. Use Merge Duplicates to combine contacts with the same phone number.`,
              durationMs: 8000,
            }),
          4000,
        );
      }
    } catch (err) {
      if (!alive.current) return;
      const message = errorMessage(err, "Failed to import contacts");
      setPhase({ kind: "idle" });
      setError(message);
      toast({ title: "Error", description: message, variant: "destructive" });
    } finally {
      if (input.current) input.current.value = "";
    }
  };

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    void start(e.dataTransfer.files[0]);
  };

  const bar =
    phase.kind === "uploading"
      ? { label: `Uploading… ${Math.round(phase.fraction * 100)}%`, value: phase.fraction * 100 }
      : phase.kind === "importing"
        ? {
            label: phase.job
              ? `Importing… ${Math.round(percent(phase.job))}% (${formatNumber(phase.job.rowsRead ?? 0, locale)} rows read)`
              : "Waiting for the import to start…",
            value: percent(phase.job),
          }
        : phase.kind === "done"
          ? { label: "Import complete", value: 100 }
          : null;

  return (
    <Modal open={open} onClose={busy ? () => {} : onClose} title="Import Contacts">
      <div className="space-y-4">
        <div>
          <p className="text-sm font-medium text-slate-700">Contact type</p>
          <p className="mt-1 rounded-lg border border-slate-200 bg-slate-50 px-3 py-2 text-sm">Phone Numbers (SMS Contacts)</p>
        </div>

        <div
          onDragOver={(e) => {
            e.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
          className={cx(
            "rounded-xl border-2 border-dashed p-6 text-center text-sm",
            dragging ? "border-brand-500 bg-brand-50" : "border-slate-300",
          )}
        >
          <p className="text-slate-600">Drag and drop a CSV file here, or</p>
          <Button variant="secondary" className="mt-2" disabled={busy} onClick={() => input.current?.click()}>
            Browse files
          </Button>
          <input
            ref={input}
            type="file"
            accept=".csv,text/csv"
            aria-label="CSV file"
            className="hidden"
            onChange={(e) => void start(e.target.files?.[0])}
          />
        </div>

        {bar && (
          <div>
            <div
              role="progressbar"
              aria-label="Import progress"
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={Math.round(bar.value)}
              className="h-2 overflow-hidden rounded-full bg-slate-200"
            >
              <div className="h-full bg-brand-600 transition-all" style={{ width: `${bar.value}%` }} />
            </div>
            <p className="mt-1 text-xs text-slate-600">{bar.label}</p>
          </div>
        )}

        {phase.kind === "done" && (
          <div className="rounded-lg bg-slate-50 p-3 text-sm" data-testid="import-result">
            <p>{importSummary(phase.job, locale)}.</p>
            <p className="text-slate-500">{formatNumber(phase.job.rowsRead, locale)} rows read.</p>
            {phase.job.errors.length > 0 && (
              <ul className="mt-2 max-h-32 overflow-y-auto text-xs text-slate-600">
                {phase.job.errors.slice(0, 50).map((e, i) => (
                  <li key={i}>
                    Line {e.line}: {e.reason}
                  </li>
                ))}
                {phase.job.errors.length > 50 && <li>…and {phase.job.errors.length - 50} more</li>}
              </ul>
            )}
          </div>
        )}

        {error && <Alert>{error}</Alert>}

        <div className="rounded-lg border border-slate-200 p-3 text-xs text-slate-600">
          <p className="font-medium text-slate-700">CSV format</p>
          <ul className="mt-1 list-disc space-y-0.5 pl-4">
            <li>The first row holds the column names (any letter case).</li>
            <li>
              Columns: <code>phone</code> (or <code>phone_number</code>, <code>mobile</code>), <code>first_name</code>,{" "}
              <code>last_name</code>, <code>email</code>.
            </li>
            <li>Rows without a phone number are skipped and reported.</li>
            <li>Numbers without a country code use your account's region.</li>
          </ul>
          <button
            type="button"
            className="mt-2 font-medium text-brand-700 hover:underline"
            onClick={() => saveBlob(new Blob([SAMPLE_CSV], { type: "text/csv" }), "sample-contacts.csv")}
          >
            Download sample CSV
          </button>
        </div>

        <div className="flex justify-end gap-2">
          <Button variant="secondary" disabled={busy} onClick={onClose}>
            {phase.kind === "done" ? "Close" : "Cancel"}
          </Button>
        </div>
      </div>
    </Modal>
  );
}
