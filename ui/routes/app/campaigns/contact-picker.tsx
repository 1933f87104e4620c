import { useEffect, useState, type ReactNode } from "react";
import { Button, cx, Input, Spinner } from "../../../components/ui";
import { formatNumber } from "../../../lib/format";
import { useContacts } from "../../../api/contacts";
import { contactName, formatPhone, type Contact } from "../contacts/model";

/** Chosen contacts: id to the label shown for it ("" when only the id is known). */
export type ChosenContacts = Map<string, string>;

const PICKER_PAGE = 25;

/** Searches the contacts on the server and keeps a selection across searches. */
export function ContactPicker({
  selected,
  onChange,
  locale,
}: {
  selected: ChosenContacts;
  onChange: (next: ChosenContacts) => void;
  locale: string;
}) {
  const [search, setSearch] = useState("");
  const [q, setQ] = useState("");
  useEffect(() => {
    const t = setTimeout(() => setQ(search.trim()), 250);
    return () => clearTimeout(t);
  }, [search]);
  const list = useContacts({ page: 1, pageSize: PICKER_PAGE, q });
  const contacts = list.data?.data ?? [];
  const more = (list.data?.total ?? 0) - contacts.length;
  // Contacts of a saved campaign are known by id only until they show up in a search.
  const labelled = [...selected].filter(([, label]) => label);
  const unlabelled = selected.size - labelled.length;

  const toggle = (c: Contact) => {
    const next = new Map(selected);
    if (next.has(c.id)) next.delete(c.id);
    else next.set(c.id, `${contactName(c)}${c.phone ? ` · ${formatPhone(c.phone)}` : ""}`);
    onChange(next);
  };
  const unavailable = (c: Contact) => (!c.phone ? "no phone" : c.status === "opted_out" ? "opted out" : null);

  return (
    <div className="space-y-2 rounded-lg border border-slate-200 p-3">
      <div className="flex items-center gap-2">
        <Input
          type="search"
          aria-label="Search contacts"
          placeholder="Search by name or phone"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
        />
        {list.loading && <Spinner className="text-slate-400" />}
      </div>
      {list.error && <p className="text-sm text-red-600">Could not load contacts: {list.error.message}</p>}
      <ul className="max-h-56 divide-y divide-slate-100 overflow-y-auto" aria-label="Contacts">
        {contacts.map((c) => {
          const why = unavailable(c);
          return (
            <li key={c.id}>
              <label
                className={cx(
                  "flex items-center gap-3 px-1 py-2 text-sm",
                  why ? "cursor-not-allowed opacity-50" : "cursor-pointer",
                )}
              >
                <input type="checkbox" disabled={!!why} checked={selected.has(c.id)} onChange={() => toggle(c)} />
                <span className="min-w-0 flex-1">
                  <span className="block truncate font-medium">{contactName(c)}</span>
                  <span className="block truncate text-xs text-slate-500">
                    {c.phone ? formatPhone(c.phone) : "No phone number"}
                  </span>
                </span>
                {why && <span className="text-xs text-slate-500">{why}</span>}
              </label>
            </li>
          );
        })}
        {!list.loading && contacts.length === 0 && (
          <li className="py-3 text-center text-sm text-slate-500">
            {q ? `No contacts match “${q}”.` : "You have no contacts yet."}
          </li>
        )}
      </ul>
      {more > 0 && <p className="text-xs text-slate-500">{formatNumber(more, locale)} more: refine the search to find them.</p>}
      <div className="flex flex-wrap items-center justify-between gap-2 border-t border-slate-100 pt-2">
        <span className="text-sm font-medium" data-testid="picker-count">
          {formatNumber(selected.size, locale)} contact{selected.size === 1 ? "" : "s"} selected
        </span>
        {selected.size > 0 && (
          <Button variant="ghost" className="!px-2 !py-1" onClick={() => onChange(new Map())}>
            Clear selection
          </Button>
        )}
      </div>
      {selected.size > 0 && (
        <div className="flex flex-wrap gap-1">
          {labelled.slice(0, 12).map(([id, label]) => (
            <span key={id} className="rounded-full bg-brand-50 px-2 py-0.5 text-xs text-brand-700">
              {label}
            </span>
          ))}
          {labelled.length > 12 && <span className="text-xs text-slate-500">+{labelled.length - 12} more</span>}
          {unlabelled > 0 && <span className="text-xs text-slate-500">{formatNumber(unlabelled, locale)} chosen earlier</span>}
        </div>
      )}
    </div>
  );
}

/** One radio choice of an audience list, with its exact count when known. */
export function AudienceOption({
  name,
  checked,
  onSelect,
  label,
  description,
  count,
  locale,
  children,
}: {
  name: string;
  checked: boolean;
  onSelect: () => void;
  label: string;
  description?: string;
  count?: number | null;
  locale: string;
  children?: ReactNode;
}) {
  return (
    <div className={cx("rounded-lg border p-3", checked ? "border-brand-500 bg-brand-50/40" : "border-slate-200")}>
      <label className="flex cursor-pointer items-start gap-3">
        <input type="radio" name={name} className="mt-1" checked={checked} onChange={onSelect} />
        <span className="min-w-0 flex-1">
          <span className="block text-sm font-medium">{label}</span>
          {description && <span className="block text-xs text-slate-500">{description}</span>}
        </span>
        {count !== undefined && (
          <span className="shrink-0 text-sm text-slate-600">
            {count === null ? (
              <Spinner className="h-3 w-3 text-slate-300" />
            ) : (
              `${formatNumber(count, locale)} contact${count === 1 ? "" : "s"}`
            )}
          </span>
        )}
      </label>
      {checked && children && <div className="mt-3">{children}</div>}
    </div>
  );
}
