import { useEffect, useMemo, useRef, useState, type DragEvent } from "react";
import { ScrollBox } from "../../../components/scroll-box";
import { Alert, Button, cx, Field, Input, Modal, Select, Spinner } from "../../../components/ui";
import { fetchImportJob, fetchRejectedRows } from "../../../api/contacts";
import { errorMessage } from "../../../lib/api";
import { formatNumber } from "../../../lib/format";
import { toast } from "../../../lib/toast";
import { useMutation } from "../../../lib/use-mutation";
import { CountrySelect } from "./country-select";
import {
  formatPhone,
  previewCsv,
  SAMPLE_CSV,
  saveBlob,
  uploadCsv,
  type ColumnTarget,
  type ImportJob,
  type ImportOptions,
  type ImportPreview,
} from "./model";

type Column = { target: Exclude<ColumnTarget, `custom:${string}`> | "custom"; custom: string };
type Setup = {
  file: File;
  preview: ImportPreview;
  columns: Column[];
  country: string;
  tag: string;
  onDuplicate: "skip" | "update";
};
type Phase =
  | { kind: "idle" }
  | { kind: "reading" }
  | { kind: "mapping"; setup: Setup }
  | { kind: "uploading"; fraction: number }
  | { kind: "importing"; job: ImportJob | null }
  | { kind: "done"; job: ImportJob; setup: Setup };

const TARGETS: { value: Column["target"]; label: string }[] = [
  { value: "skip", label: "Don't import" },
  { value: "firstName", label: "First name" },
  { value: "lastName", label: "Last name" },
  { value: "fullName", label: "Full name (split)" },
  { value: "phone", label: "Phone" },
  { value: "email", label: "Email" },
  { value: "tags", label: "Tags" },
  { value: "custom", label: "Custom field…" },
];

const ENCODINGS: Record<ImportPreview["encoding"], string> = {
  "utf-8": "UTF-8",
  "utf-16le": "UTF-16",
  "utf-16be": "UTF-16",
  "windows-1252": "Windows-1252 (Excel)",
};
const DELIMITERS: Record<string, string> = { ",": "commas", ";": "semicolons", "\t": "tabs" };

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
  if (job.duplicates) parts.push(`${n(job.duplicates)} ${job.duplicates === 1 ? "duplicate" : "duplicates"} skipped`);
  if (job.invalid) parts.push(`${n(job.invalid)} invalid ${job.invalid === 1 ? "row" : "rows"}`);
  return parts.join(", ");
}

const columnsFrom = (mapping: ColumnTarget[], headers: string[]): Column[] =>
  mapping.map((m, i) =>
    m.startsWith("custom:")
      ? { target: "custom", custom: m.slice(7) }
      : { target: m as Column["target"], custom: headers[i] ?? "" },
  );
const mappingOf = (columns: Column[]): ColumnTarget[] =>
  columns.map((c): ColumnTarget => (c.target !== "custom" ? c.target : c.custom.trim() ? `custom:${c.custom.trim()}` : "skip"));

/** A preview row as the import reads it with the chosen columns (the server's rules: csv-stream.ts toRow). */
function asContact(cells: string[], columns: Column[]) {
  const of = (t: Column["target"]) => columns.map((c, i) => (c.target === t ? (cells[i] ?? "").trim() : "")).filter(Boolean);
  let first = of("firstName")[0] ?? "";
  let last = of("lastName")[0] ?? "";
  const full = of("fullName")[0] ?? "";
  if (!first && !last && full) {
    const [given = "", ...rest] = full.split(/\s+/);
    first = given;
    last = rest.join(" ");
  }
  const phone = (of("phone")[0] ?? "").split(":::")[0]!.trim();
  return { name: `${first} ${last}`.trim(), phone, email: of("email")[0] ?? "" };
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
  const [showEmpty, setShowEmpty] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const alive = useRef(true);

  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
    };
  }, []);
  useEffect(() => {
    if (open && (phase.kind === "done" || phase.kind === "mapping")) setPhase({ kind: "idle" });
    if (open) setError("");
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);

  const busy = phase.kind === "uploading" || phase.kind === "importing" || phase.kind === "reading";

  const choose = async (file: File | undefined) => {
    if (!file || busy) return;
    if (input.current) input.current.value = "";
    if (!file.name.toLowerCase().endsWith(".csv")) {
      setError("Please select a CSV file");
      return;
    }
    setError("");
    setShowEmpty(false);
    setPhase({ kind: "reading" });
    try {
      const preview = await previewCsv(file);
      if (!alive.current) return;
      setPhase({
        kind: "mapping",
        setup: {
          file,
          preview,
          columns: columnsFrom(preview.mapping, preview.headers),
          country: preview.defaultCountry,
          tag: "",
          onDuplicate: "skip",
        },
      });
    } catch (err) {
      setPhase({ kind: "idle" });
      setError(errorMessage(err, "Failed to read the file"));
    }
  };

  const run = async (setup: Setup) => {
    const mapping = mappingOf(setup.columns);
    if (!mapping.includes("phone")) {
      setError("Please choose the column that holds the phone number.");
      return;
    }
    const options: ImportOptions = { mapping, tag: setup.tag, country: setup.country, onDuplicate: setup.onDuplicate };
    setError("");
    setPhase({ kind: "uploading", fraction: 0 });
    try {
      const { id } = await uploadCsv(
        setup.file,
        (fraction) => alive.current && setPhase({ kind: "uploading", fraction }),
        options,
      );
      setPhase({ kind: "importing", job: null });
      let job: ImportJob;
      for (;;) {
        await sleep(500);
        job = await fetchImportJob(id);
        if (!alive.current) return;
        if (job.state === "done" || job.state === "failed") break;
        setPhase({ kind: "importing", job });
      }
      onImported();
      if (job.state === "failed") {
        setPhase({ kind: "mapping", setup });
        setError(job.error || "Failed to import contacts");
        toast({ title: "Error", description: job.error || "Failed to import contacts", variant: "destructive" });
        return;
      }
      setPhase({ kind: "done", job, setup });
      const warnings = job.duplicates > 0 || job.invalid > 0;
      toast({
        title: warnings ? "Import Complete with Warnings" : "Success",
        description: importSummary(job, locale),
        durationMs: 6000,
      });
      if (job.duplicates > 0 && job.duplicateDetails.length > 0) {
        const pairs = job.duplicateDetails.slice(0, 3).map((d) => `"${d.attemptedName}" already exists as "${d.existingName}"`);
        const more = job.duplicates - pairs.length;
        setTimeout(
          () =>
            toast({
              title: "Duplicates Detected",
              description: `${pairs.join("; ")}${more > 0 ? `; and ${formatNumber(more, locale)} more` : ""}. Those rows were skipped: contacts are matched by phone number. Choose “Update existing contacts” to bring their details in.`,
              durationMs: 8000,
            }),
          4000,
        );
      }
    } catch (err) {
      if (!alive.current) return;
      const message = errorMessage(err, "Failed to import contacts");
      setPhase({ kind: "mapping", setup });
      setError(message);
      toast({ title: "Error", description: message, variant: "destructive" });
    }
  };

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    void choose(e.dataTransfer.files[0]);
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

        {phase.kind !== "mapping" && (
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
              {phase.kind === "reading" && <Spinner />}
              Browse files
            </Button>
          </div>
        )}
        <input
          ref={input}
          type="file"
          accept=".csv,text/csv"
          aria-label="CSV file"
          className="hidden"
          onChange={(e) => void choose(e.target.files?.[0])}
        />

        {phase.kind === "mapping" && (
          <MappingStep
            setup={phase.setup}
            locale={locale}
            showEmpty={showEmpty}
            onShowEmpty={() => setShowEmpty(true)}
            onChange={(setup) => setPhase({ kind: "mapping", setup })}
            onOtherFile={() => input.current?.click()}
          />
        )}

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
          <ImportResult
            job={phase.job}
            locale={locale}
            onUpdate={phase.setup.onDuplicate === "skip" ? () => void run({ ...phase.setup, onDuplicate: "update" }) : undefined}
          />
        )}

        {error && <Alert>{error}</Alert>}

        {(phase.kind === "idle" || phase.kind === "reading") && (
          <div className="rounded-lg border border-slate-200 p-3 text-xs text-slate-600">
            <p className="font-medium text-slate-700">CSV format</p>
            <ul className="mt-1 list-disc space-y-0.5 pl-4">
              <li>The first row holds the column names; you choose what each column is before importing.</li>
              <li>
                Exports from Google Contacts and Outlook are recognised, as are <code>phone</code>, <code>first_name</code>,{" "}
                <code>last_name</code> and <code>email</code> columns.
              </li>
              <li>UTF-8, UTF-16 and Excel's Windows-1252 files keep their accents.</li>
              <li>Rows without a phone number are skipped and reported.</li>
            </ul>
            <button
              type="button"
              className="mt-2 font-medium text-brand-700 hover:underline"
              onClick={() => saveBlob(new Blob([SAMPLE_CSV], { type: "text/csv" }), "sample-contacts.csv")}
            >
              Download sample CSV
            </button>
          </div>
        )}

        <div className="flex justify-end gap-2">
          <Button variant="secondary" disabled={busy} onClick={onClose}>
            {phase.kind === "done" ? "Close" : "Cancel"}
          </Button>
          {phase.kind === "mapping" && <Button onClick={() => void run(phase.setup)}>Import Contacts</Button>}
        </div>
      </div>
    </Modal>
  );
}

/** The file's columns, each with its first values and what it becomes; the country, a tag, what duplicates do. */
function MappingStep({
  setup,
  locale,
  showEmpty,
  onShowEmpty,
  onChange,
  onOtherFile,
}: {
  setup: Setup;
  locale: string;
  showEmpty: boolean;
  onShowEmpty: () => void;
  onChange: (s: Setup) => void;
  onOtherFile: () => void;
}) {
  const { preview, columns } = setup;
  const setColumn = (i: number, c: Column) => onChange({ ...setup, columns: columns.map((x, j) => (j === i ? c : x)) });
  // Exports such as Google's have dozens of columns, most of them empty: those wait behind a button.
  const filled = preview.headers.map((_, i) => preview.rows.some((r) => (r[i] ?? "").trim()) || columns[i]!.target !== "skip");
  const hidden = filled.filter((f) => !f).length;
  const contacts = useMemo(() => preview.rows.map((r) => asContact(r, columns)), [preview.rows, columns]);

  return (
    <div className="space-y-4" data-testid="import-mapping">
      <div className="flex items-start justify-between gap-2 text-sm">
        <div>
          <p className="font-medium text-slate-800">{setup.file.name}</p>
          <p className="text-xs text-slate-500" data-testid="import-file-info">
            {ENCODINGS[preview.encoding]}, separated by {DELIMITERS[preview.delimiter] ?? `"${preview.delimiter}"`},{" "}
            {preview.headers.length} columns
          </p>
        </div>
        <button type="button" className="shrink-0 text-xs font-medium text-brand-700 hover:underline" onClick={onOtherFile}>
          Choose another file
        </button>
      </div>

      <div>
        <p className="text-sm font-medium text-slate-700">Columns</p>
        <ul className="mt-1 divide-y divide-slate-100 rounded-lg border border-slate-200">
          {preview.headers.map((h, i) =>
            !filled[i] && !showEmpty ? null : (
              <li key={i} className="grid grid-cols-[1fr_9.5rem] items-center gap-2 px-3 py-2">
                <div className="min-w-0">
                  <p className="truncate text-sm font-medium text-slate-800">{h || `Column ${i + 1}`}</p>
                  <p className="truncate text-xs text-slate-500">
                    {preview.rows
                      .map((r) => (r[i] ?? "").trim())
                      .filter(Boolean)
                      .slice(0, 3)
                      .join(" · ") || "empty in the first rows"}
                  </p>
                </div>
                <div className="space-y-1">
                  <Select
                    aria-label={`Column ${h || i + 1}`}
                    value={columns[i]!.target}
                    onChange={(e) => setColumn(i, { ...columns[i]!, target: e.target.value as Column["target"] })}
                  >
                    {TARGETS.map((t) => (
                      <option key={t.value} value={t.value}>
                        {t.label}
                      </option>
                    ))}
                  </Select>
                  {columns[i]!.target === "custom" && (
                    <Input
                      aria-label={`Custom field name for ${h || i + 1}`}
                      maxLength={100}
                      value={columns[i]!.custom}
                      onChange={(e) => setColumn(i, { ...columns[i]!, custom: e.target.value })}
                    />
                  )}
                </div>
              </li>
            ),
          )}
        </ul>
        {hidden > 0 && !showEmpty && (
          <button type="button" className="mt-1 text-xs font-medium text-brand-700 hover:underline" onClick={onShowEmpty}>
            Show {hidden} empty columns (not imported)
          </button>
        )}
      </div>

      <div>
        <p className="text-sm font-medium text-slate-700">First rows as they will be imported</p>
        <ScrollBox label="First rows as they will be imported" className="mt-1 rounded-lg border border-slate-200">
          <table className="w-full text-left text-xs" data-testid="import-preview">
            <thead className="bg-slate-50 text-slate-500">
              <tr>
                <th className="px-2 py-1.5 font-medium">Name</th>
                <th className="px-2 py-1.5 font-medium">Phone</th>
                <th className="px-2 py-1.5 font-medium">Email</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {contacts.map((c, i) => (
                <tr key={i}>
                  <td className="px-2 py-1.5">{c.name || <span className="text-slate-400">—</span>}</td>
                  <td className="whitespace-nowrap px-2 py-1.5">{c.phone || <span className="text-red-600">no phone</span>}</td>
                  <td className="px-2 py-1.5">{c.email}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      </div>

      <div className="grid gap-3 sm:grid-cols-2">
        <Field label="Country of numbers without +" htmlFor="import-country">
          <CountrySelect
            id="import-country"
            value={setup.country}
            locale={locale}
            onChange={(country) => onChange({ ...setup, country })}
          />
        </Field>
        <Field label="Tag every imported contact" htmlFor="import-tag">
          <Input
            id="import-tag"
            maxLength={50}
            placeholder="e.g. spring-fair"
            value={setup.tag}
            onChange={(e) => onChange({ ...setup, tag: e.target.value })}
          />
        </Field>
      </div>

      <fieldset className="text-sm">
        <legend className="font-medium text-slate-700">When a number is already in your contacts</legend>
        <label className="mt-1 flex items-center gap-2">
          <input
            type="radio"
            name="import-duplicates"
            checked={setup.onDuplicate === "skip"}
            onChange={() => onChange({ ...setup, onDuplicate: "skip" })}
          />
          Skip the row and list it
        </label>
        <label className="mt-1 flex items-center gap-2">
          <input
            type="radio"
            name="import-duplicates"
            checked={setup.onDuplicate === "update"}
            onChange={() => onChange({ ...setup, onDuplicate: "update" })}
          />
          Update existing contacts with the file's details
        </label>
      </fieldset>
    </div>
  );
}

/** Counts, the skipped duplicates with both names, the invalid rows, and the offer to update instead. */
function ImportResult({ job, locale, onUpdate }: { job: ImportJob; locale: string; onUpdate?: () => void }) {
  const listed = job.duplicateDetails ?? [];
  return (
    <div className="space-y-2 rounded-lg bg-slate-50 p-3 text-sm" data-testid="import-result">
      <p>{importSummary(job, locale)}.</p>
      <p className="text-slate-500">{formatNumber(job.rowsRead, locale)} rows read.</p>
      {listed.length > 0 && (
        <div data-testid="import-duplicates">
          <p className="font-medium text-slate-700">Skipped: the number is already in your contacts</p>
          <ul className="mt-1 max-h-32 overflow-y-auto text-xs text-slate-600">
            {listed.map((d) => (
              <li key={d.line}>
                Line {d.line}: “{d.attemptedName}” already exists as “{d.existingName}” ({formatPhone(d.phone)})
              </li>
            ))}
            {job.duplicates > listed.length && <li>…and {formatNumber(job.duplicates - listed.length, locale)} more</li>}
          </ul>
          {onUpdate && (
            <Button variant="secondary" className="mt-2" onClick={onUpdate}>
              Update existing contacts instead
            </Button>
          )}
        </div>
      )}
      {job.errors.length > 0 && (
        <ul className="max-h-32 overflow-y-auto text-xs text-slate-600" data-testid="import-errors">
          {job.errors.slice(0, 50).map((e, i) => (
            <li key={i}>
              Line {e.line}: {e.reason}
            </li>
          ))}
          {job.invalid > 50 && <li>…and {formatNumber(job.invalid - 50, locale)} more</li>}
        </ul>
      )}
      {job.rejectedRows > 0 && job.id && <RejectedRows importId={job.id} count={job.rejectedRows} locale={locale} />}
    </div>
  );
}

/** The rows refused for their phone as a CSV in the file's own columns, to fix and import again. */
function RejectedRows({ importId, count, locale }: { importId: string; count: number; locale: string }) {
  const download = useMutation(
    async () => saveBlob(await fetchRejectedRows(importId), `rejected-rows-${new Date().toISOString().slice(0, 10)}.csv`),
    { fallback: "Failed to download the rejected rows", failureToast: "Error" },
  );
  return (
    <div className="flex flex-wrap items-center gap-2" data-testid="import-rejected">
      <Button variant="secondary" onClick={() => void download.run()} disabled={download.busy}>
        Download {count === 1 ? "the rejected row" : `all ${formatNumber(count, locale)} rejected rows`} (CSV)
      </Button>
      <p className="text-xs text-slate-500">Your columns as they were, with each row's line and problem: fix the numbers and import the file again.</p>
    </div>
  );
}
