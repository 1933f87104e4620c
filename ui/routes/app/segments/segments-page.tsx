import { useSignals } from "@preact/signals-react/runtime";
import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { formatDate } from "../../../../shared/users/regional-options";
import { ConfirmDialog } from "../../../components/confirm-dialog";
import { Alert, Button, Card, Field, Input, Modal, Select, Spinner } from "../../../components/ui";
import * as segmentsApi from "../../../api/segments";
import { auth } from "../../../lib/auth";
import { formatNumber, timeAgo } from "../../../lib/format";
import { submitWith, useMutation } from "../../../lib/use-mutation";
import { CampaignSelect, useCampaignNames } from "../campaigns/campaign-select";

export type Op = "gte" | "lte" | "eq" | "contains";
export type Conditions = Record<string, Partial<Record<Op, unknown>>>;
export type Segment = segmentsApi.SegmentView;
type Template = { name: string; description: string; conditions: Conditions };

export const FIELDS = [
  { value: "totalSpent", label: "Total spent ($)", kind: "money" },
  { value: "optInDate", label: "Opt-in date", kind: "date" },
  { value: "lastEngaged", label: "Last engaged", kind: "date" },
  { value: "tags", label: "Tags", kind: "text" },
  { value: "source", label: "Source", kind: "text" },
  { value: "engagementScore", label: "Engagement score", kind: "number" },
  { value: "purchases90d", label: "Purchases (last 90 days)", kind: "number" },
  // Clicks of short links by people only (issue 32 item 2): a campaign's, or any link's within so many days.
  { value: "clickedCampaign", label: "Clicked campaign", kind: "campaign" },
  { value: "lastClicked", label: "Clicked a link (days ago)", kind: "days" },
  { value: "custom", label: "Custom field…", kind: "text" },
] as const;

const OPS: { value: Op; label: string; symbol: string }[] = [
  { value: "gte", label: "at least (≥)", symbol: "≥" },
  { value: "lte", label: "at most (≤)", symbol: "≤" },
  { value: "eq", label: "equals (=)", symbol: "=" },
  { value: "contains", label: "contains", symbol: "contains" },
];

/** For "Clicked a link (days ago)": within the last N days, or not for more than N. */
const DAY_OPS: { value: Op; label: string }[] = [
  { value: "gte", label: "within the last" },
  { value: "lte", label: "more than … ago" },
];

const fieldLabel = (field: string) =>
  field.startsWith("customFields.")
    ? field.slice("customFields.".length)
    : (FIELDS.find((f) => f.value === field)?.label ?? field);

/** Fields said in words: `purchases90d ≥ 3` is "3 purchases in 90 days" (also a custom field of that name). */
const CUSTOM_PHRASES: Record<string, (n: string) => string> = {
  purchases90d: (n) => `${n} purchase${n === "1" ? "" : "s"} in 90 days`,
};
const AT_LEAST: Partial<Record<Op, string>> = { gte: "At least ", lte: "At most ", eq: "" };

/** Money is stored in cents: 50000 reads "$500". */
const money = (cents: unknown) =>
  `$${(Number(cents) / 100).toLocaleString("en-US", { minimumFractionDigits: Number(cents) % 100 ? 2 : 0 })}`;

/** "Total spent ≥ $500 · Tags contains vip · 3 purchases in 90 days"; a clicked campaign by its name when known. */
export function describeConditions(conditions: Conditions, campaignNames?: Map<string, string>): string {
  const parts: string[] = [];
  for (const [field, ops] of Object.entries(conditions ?? {})) {
    for (const [op, value] of Object.entries(ops ?? {})) {
      if (field === "clickedCampaign") {
        parts.push(`Clicked campaign “${campaignNames?.get(String(value)) ?? String(value)}”`);
        continue;
      }
      if (field === "lastClicked" && typeof value === "string" && /^-\d+d$/.test(value)) {
        const days = value.slice(1, -1);
        parts.push(op === "lte" ? `Last clicked a link more than ${days} days ago` : `Clicked a link in the last ${days} days`);
        continue;
      }
      const custom = CUSTOM_PHRASES[field.replace(/^customFields\./, "")];
      const lead = AT_LEAST[op as Op];
      if (custom && lead !== undefined) {
        parts.push(`${lead}${custom(String(value))}`);
        continue;
      }
      if (field === "totalSpent") {
        parts.push(`Total spent ${OPS.find((o) => o.value === op)?.symbol ?? op} ${money(value)}`);
        continue;
      }
      const days = typeof value === "string" ? /^-(\d+)d$/.exec(value)?.[1] : undefined;
      if (days) {
        parts.push(`${fieldLabel(field)} ${op === "lte" ? `more than ${days} days ago` : `in the last ${days} days`}`);
        continue;
      }
      parts.push(
        `${fieldLabel(field)} ${OPS.find((o) => o.value === op)?.symbol ?? op} ${typeof value === "object" ? JSON.stringify(value) : String(value)}`,
      );
    }
  }
  return parts.join(" · ") || "All contacts";
}

type Row = { field: string; customName: string; op: Op; value: string };
const blankRow = (): Row => ({ field: "", customName: "", op: "gte", value: "" });

/** Rows to conditions; a condition is added only when both field and value are given. */
export function rowsToConditions(rows: Row[]): Conditions {
  const conditions: Conditions = {};
  for (const r of rows) {
    const field = r.field === "custom" ? (r.customName.trim() ? `customFields.${r.customName.trim()}` : "") : r.field;
    const raw = r.value.trim();
    if (!field || !raw) continue;
    const kind = FIELDS.find((f) => f.value === r.field)?.kind;
    // A campaign is matched by its id; days are "in the last N days" (-Nd, at least) or "more than N days ago" (at most).
    if (kind === "campaign") {
      conditions[field] = { eq: raw };
      continue;
    }
    if (kind === "days") {
      if (!/^\d+$/.test(raw)) continue;
      conditions[field] = { ...(conditions[field] ?? {}), [r.op === "lte" ? "lte" : "gte"]: `-${Number(raw)}d` };
      continue;
    }
    const numeric = (kind === "number" || kind === "money") && r.op !== "contains" && !Number.isNaN(Number(raw));
    // Money is typed in dollars and stored in cents.
    const value = numeric ? (kind === "money" ? Math.round(Number(raw) * 100) : Number(raw)) : raw;
    conditions[field] = { ...(conditions[field] ?? {}), [r.op]: value };
  }
  return conditions;
}

function CreateSegmentDialog({ open, onClose, onCreated }: { open: boolean; onClose: () => void; onCreated: () => void }) {
  const [name, setName] = useState("");
  const [rows, setRows] = useState<Row[]>([blankRow()]);
  const create = useMutation((segmentName: string) => segmentsApi.createSegment(segmentName, rowsToConditions(rows)), {
    onSuccess: () => {
      reset();
      onCreated();
      onClose();
    },
    success: (_created, segmentName) => ({ title: "Segment created", description: `“${segmentName}” is ready.` }),
    fallback: "Failed to create segment",
    failureToast: "Error",
  });
  const { error, setError, busy: saving } = create;

  const reset = () => {
    setName("");
    setRows([blankRow()]);
    setError("");
  };
  const set = (i: number, patch: Partial<Row>) => setRows((rs) => rs.map((r, j) => (j === i ? { ...r, ...patch } : r)));

  const submit = () => {
    if (!name.trim()) return setError("Segment name is required");
    return create.run(name.trim());
  };

  return (
    <Modal open={open} onClose={onClose} title="Create Segment">
      <form onSubmit={submitWith(submit)} className="space-y-4" noValidate>
        <Field label="Segment name" htmlFor="segment-name">
          <Input id="segment-name" value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. Big spenders" />
        </Field>
        <div className="space-y-2">
          <p className="text-sm font-medium text-slate-700">Conditions</p>
          {rows.map((r, i) => {
            const kind = FIELDS.find((f) => f.value === r.field)?.kind ?? "text";
            return (
              <div key={i} className="space-y-2 rounded-lg border border-slate-200 p-2" data-testid="condition-row">
                <div className="grid grid-cols-2 gap-2">
                  <Select
                    aria-label={`Condition ${i + 1} field`}
                    value={r.field}
                    onChange={(e) => set(i, { field: e.target.value })}
                  >
                    <option value="">Field…</option>
                    {FIELDS.map((f) => (
                      <option key={f.value} value={f.value}>
                        {f.label}
                      </option>
                    ))}
                  </Select>
                  {kind !== "campaign" && (
                    <Select
                      aria-label={`Condition ${i + 1} operator`}
                      value={r.op}
                      onChange={(e) => set(i, { op: e.target.value as Op })}
                    >
                      {(kind === "days" ? DAY_OPS : OPS).map((o) => (
                        <option key={o.value} value={o.value}>
                          {o.label}
                        </option>
                      ))}
                    </Select>
                  )}
                </div>
                {r.field === "custom" && (
                  <Input
                    aria-label={`Condition ${i + 1} custom field name`}
                    placeholder="Custom field name"
                    value={r.customName}
                    onChange={(e) => set(i, { customName: e.target.value })}
                  />
                )}
                <div className="flex gap-2">
                  {kind === "campaign" ? (
                    <CampaignSelect label={`Condition ${i + 1} value`} value={r.value} onChange={(value) => set(i, { value })} empty="Campaign…" />
                  ) : (
                    <Input
                      aria-label={`Condition ${i + 1} value`}
                      type={kind === "date" ? "date" : kind === "number" || kind === "money" || kind === "days" ? "number" : "text"}
                      placeholder={kind === "days" ? "Days" : "Value"}
                      value={r.value}
                      onChange={(e) => set(i, { value: e.target.value })}
                    />
                  )}
                  {rows.length > 1 && (
                    <Button
                      variant="ghost"
                      aria-label={`Remove condition ${i + 1}`}
                      onClick={() => setRows((rs) => rs.filter((_, j) => j !== i))}
                    >
                      ✕
                    </Button>
                  )}
                </div>
              </div>
            );
          })}
          <Button variant="ghost" onClick={() => setRows((rs) => [...rs, blankRow()])}>
            + Add condition
          </Button>
          <p className="text-xs text-slate-500">A condition is used only when both its field and value are filled in.</p>
        </div>
        {error && <Alert>{error}</Alert>}
        <div className="flex justify-end gap-2">
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={saving}>
            {saving && <Spinner />}
            Create Segment
          </Button>
        </div>
      </form>
    </Modal>
  );
}

export function SegmentsPage() {
  useSignals();
  const user = auth.value.user!;
  const segments = segmentsApi.useSegments();
  const templates = segmentsApi.useSegmentTemplates();
  const campaignNames = useCampaignNames();
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<Segment | null>(null);

  const applyTemplate = useMutation((t: Template) => segmentsApi.createSegment(t.name, t.conditions), {
    onSuccess: () => void segments.reload(),
    success: (_, t) => ({ title: "Segment created", description: `“${t.name}” was added to your segments.` }),
    fallback: "Failed to create segment",
    failureToast: "Error",
  });
  const refreshSegment = useMutation((s: Segment) => segmentsApi.refreshSegment(s.id), {
    onSuccess: () => segments.reload(),
    success: "Segment refreshed",
    fallback: "Failed to refresh segment",
    failureToast: "Error",
  });
  const deleteSegment = useMutation((s: Segment) => segmentsApi.deleteSegment(s.id), {
    onSuccess: () => void segments.reload(),
    success: "Segment deleted",
    fallback: "Failed to delete segment",
    failureToast: "Error",
  });
  // One change at a time across the page; the spinner is on the button that started it.
  const busy = applyTemplate.busy || refreshSegment.busy || deleteSegment.busy;

  const list = segments.data?.data ?? [];

  return (
    <div className="space-y-8">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold">Contact Segments</h1>
          <p className="text-slate-600">Group customers by what they spend, when they joined and how engaged they are.</p>
        </div>
        <Button onClick={() => setCreating(true)}>Create Segment</Button>
      </div>

      <section>
        <h2 className="mb-3 text-lg font-semibold">Quick-start templates</h2>
        {templates.loading && <Spinner className="text-slate-400" />}
        {templates.error && <p className="text-sm text-red-600">Could not load templates: {templates.error.message}</p>}
        <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
          {(templates.data?.data ?? []).map((t) => (
            <Card key={t.name} className="flex flex-col p-5">
              <p className="font-medium">{t.name}</p>
              <p className="mt-1 flex-1 text-sm text-slate-600">{t.description}</p>
              <p className="mt-2 text-xs text-slate-500">{describeConditions(t.conditions)}</p>
              <Button
                variant="secondary"
                className="mt-3"
                aria-label={`Use template ${t.name}`}
                disabled={busy}
                onClick={() => void applyTemplate.run(t)}
              >
                {applyTemplate.args?.[0].name === t.name && <Spinner />}
                Use template
              </Button>
            </Card>
          ))}
        </div>
      </section>

      <section>
        <h2 className="mb-3 text-lg font-semibold">Your Segments</h2>
        {segments.error && <p className="text-sm text-red-600">Could not load segments: {segments.error.message}</p>}
        {segments.loading && <Spinner className="text-slate-400" />}
        {!segments.loading && list.length === 0 && !segments.error && (
          <Card className="p-8 text-center">
            <p className="font-medium">No segments yet</p>
            <p className="mt-1 text-sm text-slate-600">Start from a template above or create your own.</p>
          </Card>
        )}
        <div className="space-y-3">
          {list.map((s) => (
            <div
              key={s.id}
              data-testid="segment"
              className="flex flex-wrap items-center justify-between gap-4 rounded-xl border border-slate-200 bg-white p-5 shadow-sm"
            >
              <div className="min-w-0 flex-1">
                <p className="font-medium">{s.name}</p>
                <p className="mt-0.5 truncate text-xs text-slate-500">{describeConditions(s.conditions, campaignNames)}</p>
              </div>
              <div className="text-right text-sm">
                <p className="font-semibold" data-testid="segment-count">
                  {formatNumber(s.contactCount ?? 0, user.locale)} contact{s.contactCount === 1 ? "" : "s"}
                </p>
                <p
                  className="text-xs text-slate-500"
                  title={s.lastUpdated ? formatDate(new Date(s.lastUpdated), user.dateFormat, user.timezone) : undefined}
                >
                  Updated {s.lastUpdated ? timeAgo(s.lastUpdated).toLowerCase() : "never"}
                </p>
              </div>
              <div className="flex flex-wrap gap-2">
                {/* The campaign wizard, opened with this segment as its audience. */}
                <Link
                  to="/simple-campaign-wizard"
                  search={{ segmentId: s.id }}
                  aria-label={`Send to this segment: ${s.name}`}
                  className="rounded-lg bg-brand-600 px-3 py-2 text-sm font-medium text-white hover:bg-brand-700"
                >
                  Send to this segment
                </Link>
                <Button
                  variant="secondary"
                  aria-label={`Refresh ${s.name}`}
                  disabled={busy}
                  onClick={() => void refreshSegment.run(s)}
                >
                  {refreshSegment.args?.[0].id === s.id && <Spinner />}
                  Refresh
                </Button>
                <Button
                  variant="ghost"
                  className="text-red-700"
                  aria-label={`Delete ${s.name}`}
                  disabled={busy}
                  onClick={() => setDeleting(s)}
                >
                  Delete
                </Button>
              </div>
            </div>
          ))}
        </div>
      </section>

      <CreateSegmentDialog open={creating} onClose={() => setCreating(false)} onCreated={() => void segments.reload()} />
      {deleting && (
        <ConfirmDialog
          title="Delete segment"
          confirmLabel="Delete"
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            await deleteSegment.run(deleting);
            setDeleting(null);
          }}
        >
          <p>Delete the segment “{deleting.name}”? Its contacts are not deleted.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
