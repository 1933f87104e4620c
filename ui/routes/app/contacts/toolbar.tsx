import { Button, Card, Input, Select, Spinner } from "../../../components/ui";
import type { ContactSort } from "../../../api/contacts";
import { formatNumber } from "../../../lib/format";
import type { ContactStats } from "./model";

/** The title and the page's actions: export, import, add. */
export function ContactsHeader({
  exporting,
  onExport,
  onImport,
  onAdd,
}: {
  exporting: boolean;
  onExport: () => void;
  onImport: () => void;
  onAdd: () => void;
}) {
  return (
    <div className="flex flex-wrap items-start justify-between gap-4">
      <div>
        <h1 className="text-2xl font-bold">Contacts</h1>
        <p className="text-slate-600">Your customers, their numbers and their consent.</p>
      </div>
      <div className="flex flex-wrap gap-2">
        <Button variant="secondary" onClick={onExport} disabled={exporting}>
          {exporting && <Spinner />}
          Export CSV
        </Button>
        <Button variant="secondary" onClick={onImport}>
          Import Contacts
        </Button>
        <Button onClick={onAdd}>Add Customer</Button>
      </div>
    </div>
  );
}

function Counter({ label, value, locale }: { label: string; value: number | undefined; locale: string }) {
  return (
    <Card className="p-5">
      <p className="text-sm text-slate-500">{label}</p>
      <p className="mt-1 text-3xl font-bold" data-testid={`counter-${label}`}>
        {value === undefined ? <Spinner className="h-6 w-6 text-slate-300" /> : formatNumber(value, locale)}
      </p>
    </Card>
  );
}

/** Total, email and SMS contacts; spinners until they load. */
export function Counters({ stats, error, locale }: { stats: ContactStats | null; error: Error | null; locale: string }) {
  return (
    <>
      {error && <p className="text-sm text-red-600">Could not load the counters: {error.message}</p>}
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-3">
        <Counter label="Total" value={stats?.total} locale={locale} />
        <Counter label="Email Contacts" value={stats?.email} locale={locale} />
        <Counter label="SMS Contacts" value={stats?.sms} locale={locale} />
      </div>
    </>
  );
}

/** The list's orders, as the API sorts them (GET /api/contacts: sort and order). */
export const SORTS = {
  newest: { label: "Newest first", sort: "createdAt", order: "desc" },
  oldest: { label: "Oldest first", sort: "createdAt", order: "asc" },
  nameAsc: { label: "Name A–Z", sort: "name", order: "asc" },
  nameDesc: { label: "Name Z–A", sort: "name", order: "desc" },
  phone: { label: "Phone number", sort: "phone", order: "asc" },
} as const satisfies Record<string, { label: string; sort: ContactSort; order: "asc" | "desc" }>;
export type SortKey = keyof typeof SORTS;

/** The search box and the list's order; both off while the duplicates are shown, which say so instead. */
export function SearchBar({
  value,
  onChange,
  sort,
  onSort,
  showingDuplicates,
  loading,
}: {
  value: string;
  onChange: (v: string) => void;
  sort: SortKey;
  onSort: (s: SortKey) => void;
  showingDuplicates: boolean;
  loading: boolean;
}) {
  return (
    <div className="flex flex-wrap items-center gap-3 border-b border-slate-200 p-4">
      <Input
        type="search"
        aria-label="Search contacts"
        placeholder="Search by name, email or phone"
        className="max-w-sm"
        value={value}
        disabled={showingDuplicates}
        onChange={(e) => onChange(e.target.value)}
      />
      <div className="w-full sm:w-44">
        <Select aria-label="Sort contacts" value={sort} disabled={showingDuplicates} onChange={(e) => onSort(e.target.value as SortKey)}>
          {Object.entries(SORTS).map(([key, s]) => (
            <option key={key} value={key}>
              {s.label}
            </option>
          ))}
        </Select>
      </div>
      {showingDuplicates && <span className="text-sm text-slate-600">Showing contacts that share a phone number</span>}
      {loading && <Spinner className="text-slate-400" />}
    </div>
  );
}

/** No contacts: none match the search, or there are none yet (import or add one). */
export function EmptyState({ query, onImport, onAdd }: { query: string; onImport: () => void; onAdd: () => void }) {
  return (
    <div className="p-10 text-center">
      {query ? (
        <p className="text-slate-600">No contacts match “{query}”.</p>
      ) : (
        <>
          <p className="font-medium">No contacts yet</p>
          <p className="mt-1 text-sm text-slate-600">Add your first customer or import a CSV file to get started.</p>
          <div className="mt-4 flex justify-center gap-2">
            <Button variant="secondary" onClick={onImport}>
              Import Contacts
            </Button>
            <Button onClick={onAdd}>Add Customer</Button>
          </div>
        </>
      )}
    </div>
  );
}
