import { useRef, useState } from "react";
import { TabPanel, Tabs, type TabItem } from "../../../components/tabs";
import { Alert, Button, Select } from "../../../components/ui";
import { formatNumber } from "../../../lib/format";
import { useSegments } from "../../../api/segments";
import { AudienceOption, ContactPicker, type ChosenContacts } from "./contact-picker";
import { parseRecipients, PRESET_AUDIENCES, type Audience, type PresetAudience } from "./model";
import { NO_PHONES_IN_CSV, recipientsFromCsv, type CsvRecipients } from "./recipients-csv";
import { useAudienceCounts } from "./senders";

export type RecipientTab = "manual" | "csv" | "lists";
export type ListKind = PresetAudience | "segment" | "contacts";

export type RecipientsState = {
  tab: RecipientTab;
  manualText: string;
  csv: (CsvRecipients & { fileName: string }) | null;
  listKind: ListKind;
  segmentId: string;
  contacts: ChosenContacts;
};

export const emptyRecipients = (): RecipientsState => ({
  tab: "manual",
  manualText: "",
  csv: null,
  listKind: "all",
  segmentId: "",
  contacts: new Map(),
});

/** A stored campaign's audience back into the tabs (chosen contacts are known by id only). */
export function recipientsStateOf(audience: Audience, recipients: string[]): RecipientsState {
  const base = emptyRecipients();
  switch (audience.kind) {
    case "manual":
      return { ...base, manualText: recipients.join("\n") };
    case "segment":
      return { ...base, tab: "lists", listKind: "segment", segmentId: audience.segmentId };
    case "contacts":
      return { ...base, tab: "lists", listKind: "contacts", contacts: new Map(audience.contactIds.map((id) => [id, ""])) };
    default:
      return { ...base, tab: "lists", listKind: audience.kind };
  }
}

/** What the tabs mean for the server: the audience and, for typed or uploaded numbers, the numbers. */
export function resolveRecipients(s: RecipientsState): { audience: Audience; recipients: string[]; empty: boolean } {
  if (s.tab === "manual") {
    const recipients = parseRecipients(s.manualText);
    return { audience: { kind: "manual" }, recipients, empty: recipients.length === 0 };
  }
  if (s.tab === "csv") {
    const recipients = s.csv?.phones ?? [];
    return { audience: { kind: "manual" }, recipients, empty: recipients.length === 0 };
  }
  if (s.listKind === "segment")
    return { audience: { kind: "segment", segmentId: s.segmentId }, recipients: [], empty: !s.segmentId };
  if (s.listKind === "contacts")
    return { audience: { kind: "contacts", contactIds: [...s.contacts.keys()] }, recipients: [], empty: s.contacts.size === 0 };
  return { audience: { kind: s.listKind }, recipients: [], empty: false };
}

const TABS: TabItem<RecipientTab>[] = [
  { value: "manual", label: "Manual Entry" },
  { value: "csv", label: "CSV Upload" },
  { value: "lists", label: "Contact Lists" },
];

export function RecipientsTabs({
  value,
  onChange,
  locale,
  error,
}: {
  value: RecipientsState;
  onChange: (next: RecipientsState) => void;
  locale: string;
  error?: string;
}) {
  const set = (patch: Partial<RecipientsState>) => onChange({ ...value, ...patch });
  return (
    <fieldset className="space-y-2">
      <legend className="text-sm font-medium text-slate-700">Recipients</legend>
      <Tabs
        tabs={TABS}
        value={value.tab}
        onChange={(tab) => set({ tab })}
        label="Recipients"
        idPrefix="recipients"
        variant="pill"
        fill
        className="overflow-x-auto"
      />
      <TabPanel idPrefix="recipients" value={value.tab}>
        {value.tab === "manual" && (
          <ManualPanel text={value.manualText} onChange={(manualText) => set({ manualText })} locale={locale} />
        )}
        {value.tab === "csv" && <CsvPanel csv={value.csv} onChange={(csv) => set({ csv })} locale={locale} />}
        {value.tab === "lists" && <ListsPanel value={value} set={set} locale={locale} />}
      </TabPanel>
      {error && (
        <p role="alert" className="text-sm text-red-600">
          {error}
        </p>
      )}
    </fieldset>
  );
}

function ManualPanel({ text, onChange, locale }: { text: string; onChange: (t: string) => void; locale: string }) {
  const count = parseRecipients(text).length;
  return (
    <div className="space-y-1">
      <label htmlFor="campaign-recipients" className="sr-only">
        Phone numbers
      </label>
      <textarea
        id="campaign-recipients"
        rows={4}
        value={text}
        onChange={(e) => onChange(e.target.value)}
        placeholder={"+14155550123, +14155550124\n+447911123456"}
        className="w-full rounded-lg border border-slate-300 px-3 py-2 font-mono text-sm shadow-sm focus:border-brand-500 focus:outline-none focus:ring-2 focus:ring-brand-500/30"
      />
      <p className="text-xs text-slate-500">
        Separate numbers with commas or new lines.{" "}
        {count > 0 && `${formatNumber(count, locale)} number${count === 1 ? "" : "s"} entered.`}
      </p>
    </div>
  );
}

function CsvPanel({
  csv,
  onChange,
  locale,
}: {
  csv: RecipientsState["csv"];
  onChange: (csv: RecipientsState["csv"]) => void;
  locale: string;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [error, setError] = useState("");
  const n = (v: number) => formatNumber(v, locale);

  const read = async (file: File | undefined) => {
    if (!file) return;
    if (!file.name.toLowerCase().endsWith(".csv")) {
      setError("Please select a CSV file");
      return;
    }
    const result = recipientsFromCsv(await file.text());
    if (input.current) input.current.value = "";
    if (result.phones.length === 0) {
      setError(NO_PHONES_IN_CSV);
      onChange(null);
      return;
    }
    setError("");
    onChange({ ...result, fileName: file.name });
  };

  return (
    <div className="space-y-2">
      <div className="rounded-lg border-2 border-dashed border-slate-300 p-4 text-center text-sm">
        <p className="text-slate-600">
          A CSV file with a phone column (phone, phone_number, mobile…). It is read here, in your browser.
        </p>
        <Button variant="secondary" className="mt-2" onClick={() => input.current?.click()}>
          {csv ? "Choose another file" : "Choose CSV file"}
        </Button>
        <input
          ref={input}
          type="file"
          accept=".csv,text/csv"
          aria-label="Recipients CSV file"
          className="hidden"
          onChange={(e) => void read(e.target.files?.[0])}
        />
      </div>
      {error && <Alert>{error}</Alert>}
      {csv && (
        <div className="rounded-lg bg-slate-50 p-3 text-sm" data-testid="csv-summary">
          <p className="font-medium">
            {n(csv.phones.length)} phone number{csv.phones.length === 1 ? "" : "s"} found in {csv.fileName}
          </p>
          <p className="text-xs text-slate-600">
            Read from {csv.column}; {n(csv.rows)} row{csv.rows === 1 ? "" : "s"}
            {csv.invalid > 0 && `, ${n(csv.invalid)} without a valid phone`}
            {csv.duplicates > 0 && `, ${n(csv.duplicates)} duplicate${csv.duplicates === 1 ? "" : "s"}`}.
          </p>
          <p className="mt-1 truncate font-mono text-xs text-slate-500">
            {csv.phones.slice(0, 5).join(", ")}
            {csv.phones.length > 5 && ` … +${n(csv.phones.length - 5)} more`}
          </p>
          <Button variant="ghost" className="mt-1 !px-2 !py-1" onClick={() => onChange(null)}>
            Remove file
          </Button>
        </div>
      )}
    </div>
  );
}

function ListsPanel({
  value,
  set,
  locale,
}: {
  value: RecipientsState;
  set: (patch: Partial<RecipientsState>) => void;
  locale: string;
}) {
  const counts = useAudienceCounts();
  const segments = useSegments();
  const segmentList = segments.data?.data ?? [];
  const chosenSegment = segmentList.find((s) => s.id === value.segmentId);
  return (
    <div className="space-y-2" role="radiogroup" aria-label="Contact list">
      {counts.error && <p className="text-sm text-red-600">Could not count your contacts: {counts.error.message}</p>}
      {PRESET_AUDIENCES.map((a) => (
        <AudienceOption
          key={a.kind}
          name="campaign-list"
          checked={value.listKind === a.kind}
          onSelect={() => set({ listKind: a.kind })}
          label={a.label}
          description={a.description}
          count={counts.data ? counts.data[a.kind] : counts.error ? undefined : null}
          locale={locale}
        />
      ))}
      <AudienceOption
        name="campaign-list"
        checked={value.listKind === "segment"}
        onSelect={() => set({ listKind: "segment" })}
        label="A segment"
        description="Contacts matching one of your saved segments"
        count={chosenSegment?.contactCount}
        locale={locale}
      >
        {segmentList.length === 0 ? (
          <p className="text-sm text-slate-600">
            {segments.loading ? "Loading segments…" : "You have no segments yet. Create one under Contact Segments."}
          </p>
        ) : (
          <Select aria-label="Segment" value={value.segmentId} onChange={(e) => set({ segmentId: e.target.value })}>
            <option value="">Choose a segment…</option>
            {segmentList.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name} ({formatNumber(s.contactCount, locale)})
              </option>
            ))}
          </Select>
        )}
      </AudienceOption>
      <AudienceOption
        name="campaign-list"
        checked={value.listKind === "contacts"}
        onSelect={() => set({ listKind: "contacts" })}
        label="Choose contacts"
        description="Pick people from your contact list"
        count={value.listKind === "contacts" ? value.contacts.size : undefined}
        locale={locale}
      >
        <ContactPicker selected={value.contacts} onChange={(contacts) => set({ contacts })} locale={locale} />
      </AudienceOption>
    </div>
  );
}
