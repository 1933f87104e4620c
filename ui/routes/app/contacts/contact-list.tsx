import { useEffect, useState } from "react";
import { formatDate } from "../../../../shared/users/regional-options";
import { Badge } from "../../../components/badge";
import { Menu } from "../../../components/menu";
import { ScrollBox } from "../../../components/scroll-box";
import { cx } from "../../../components/ui";
import { contactName, contactType, formatPhone, type Contact } from "./model";

/** What a row can do; `duplicate` adds "Merge Duplicates". */
export type RowActions = {
  isDuplicate: (c: Contact) => boolean;
  onEdit: (c: Contact) => void;
  onMessage: (c: Contact) => void;
  onMerge: (c: Contact) => void;
  onConsent: (c: Contact) => void;
  onDelete: (c: Contact) => void;
};

type ListProps = {
  rows: Contact[];
  selected: Set<string>;
  onToggle: (id: string) => void;
  onSelectAll: (all: boolean) => void;
  actions: RowActions;
  dateFormat: string;
  timeZone: string;
};

const WIDE = "(min-width: 768px)";

/** Whether the table fits (768 px and wider); below that the contacts are cards. One of the two is rendered. */
function useWideScreen(): boolean {
  const [wide, setWide] = useState(() => window.matchMedia(WIDE).matches);
  useEffect(() => {
    const query = window.matchMedia(WIDE);
    const onChange = () => setWide(query.matches);
    query.addEventListener("change", onChange);
    return () => query.removeEventListener("change", onChange);
  }, []);
  return wide;
}

/** The contacts of the page: a table on a wide screen, one card each on a phone. */
export function ContactList(props: ListProps) {
  return useWideScreen() ? <ContactTable {...props} /> : <ContactCards {...props} />;
}

function RowMenu({ contact, actions }: { contact: Contact; actions: RowActions }) {
  return (
    <Menu
      label={`Actions for ${contactName(contact)}`}
      className="inline-block text-left"
      items={[
        { label: "Edit Contact", onSelect: () => actions.onEdit(contact) },
        {
          label: "Send Message",
          onSelect: () => actions.onMessage(contact),
          disabled: !contact.phone || contact.status === "opted_out",
          title: !contact.phone
            ? "This contact doesn't have a phone number."
            : contact.status === "opted_out"
              ? "This contact opted out."
              : undefined,
        },
        ...(actions.isDuplicate(contact) ? [{ label: "Merge Duplicates", onSelect: () => actions.onMerge(contact) }] : []),
        { label: "View consent history", onSelect: () => actions.onConsent(contact) },
        { label: "Delete Contact", onSelect: () => actions.onDelete(contact), danger: true },
      ]}
    />
  );
}

function NameLine({ contact, className }: { contact: Contact; className?: string }) {
  return (
    <div className="flex flex-wrap items-center gap-2">
      <span className={cx("font-medium", className)}>{contactName(contact)}</span>
      {contact.status === "opted_out" && <Badge tone="red">Opted out</Badge>}
    </div>
  );
}

/** The first four tags, and how many more. */
function Tags({ tags }: { tags: string[] }) {
  if (tags.length === 0) return null;
  return (
    <div className="mt-1 flex flex-wrap gap-1">
      {tags.slice(0, 4).map((t) => (
        <span key={t} className="rounded bg-slate-100 px-1.5 text-xs text-slate-600">
          {t}
        </span>
      ))}
      {tags.length > 4 && <span className="text-xs text-slate-500">+{tags.length - 4}</span>}
    </div>
  );
}

const added = (c: Contact, dateFormat: string, timeZone: string) =>
  c.createdAt ? formatDate(new Date(c.createdAt), dateFormat, timeZone) : "";

function ContactCards({ rows, selected, onToggle, actions, dateFormat, timeZone }: ListProps) {
  return (
    <ul className="divide-y divide-slate-100" aria-label="Contacts" data-testid="contact-cards">
      {rows.map((c) => (
        <li key={c.id} className={cx("flex items-start gap-3 px-4 py-3", selected.has(c.id) && "bg-brand-50/50")}>
          <input
            type="checkbox"
            className="mt-1"
            aria-label={`Select ${contactName(c)}`}
            checked={selected.has(c.id)}
            onChange={() => onToggle(c.id)}
          />
          <div className="min-w-0 flex-1 text-sm">
            <NameLine contact={c} className="break-words" />
            {c.phone && <p className="text-slate-700">{formatPhone(c.phone)}</p>}
            {c.email && <p className="truncate text-slate-600">{c.email}</p>}
            <p className="text-xs text-slate-500">
              {contactType(c)} · Added {added(c, dateFormat, timeZone)}
            </p>
            <Tags tags={c.tags} />
          </div>
          <RowMenu contact={c} actions={actions} />
        </li>
      ))}
    </ul>
  );
}

function ContactTable({ rows, selected, onToggle, onSelectAll, actions, dateFormat, timeZone }: ListProps) {
  const allSelected = rows.length > 0 && rows.every((c) => selected.has(c.id));
  return (
    <ScrollBox label="Contacts">
      <table className="w-full text-left text-sm">
        <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
          <tr>
            <th className="w-10 px-4 py-3">
              <input
                type="checkbox"
                aria-label="Select all on this page"
                checked={allSelected}
                onChange={() => onSelectAll(!allSelected)}
              />
            </th>
            <th className="px-4 py-3">Contact</th>
            <th className="px-4 py-3">Email</th>
            <th className="px-4 py-3">Phone</th>
            <th className="px-4 py-3">Type</th>
            <th className="px-4 py-3">Added</th>
            <th className="px-4 py-3 text-right">Actions</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {rows.map((c) => (
            <tr key={c.id} className={cx("hover:bg-slate-50", selected.has(c.id) && "bg-brand-50/50")}>
              <td className="px-4 py-3">
                <input
                  type="checkbox"
                  aria-label={`Select ${contactName(c)}`}
                  checked={selected.has(c.id)}
                  onChange={() => onToggle(c.id)}
                />
              </td>
              <td className="px-4 py-3">
                <NameLine contact={c} />
                <Tags tags={c.tags} />
              </td>
              <td className="px-4 py-3 text-slate-600">{c.email || "—"}</td>
              <td className="whitespace-nowrap px-4 py-3 text-slate-600">{c.phone ? formatPhone(c.phone) : "—"}</td>
              <td className="whitespace-nowrap px-4 py-3">
                <Badge tone="slate">{contactType(c)}</Badge>
              </td>
              <td className="whitespace-nowrap px-4 py-3 text-slate-600">{added(c, dateFormat, timeZone)}</td>
              <td className="px-4 py-3 text-right">
                <RowMenu contact={c} actions={actions} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}
