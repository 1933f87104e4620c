import { useSignals } from "@preact/signals-react/runtime";
import { useNavigate } from "@tanstack/react-router";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { formatDate } from "../../../../src/users/regional-options";
import { ConfirmDialog } from "../../../components/confirm-dialog";
import { Pagination } from "../../../components/pagination";
import { Button, Card, cx, Input, Spinner } from "../../../components/ui";
import { api, errorMessage } from "../../../lib/api";
import { auth } from "../../../lib/auth";
import { formatNumber } from "../../../lib/format";
import { toast } from "../../../lib/toast";
import { useApi } from "../../../lib/use-api";
import { ConsentDialog } from "./consent-dialog";
import { ContactDialog } from "./contact-dialog";
import { DuplicateBanner, MergeDialog } from "./duplicates";
import { ImportDialog } from "./import-dialog";
import {
  contactName,
  contactType,
  downloadExport,
  formatPhone,
  PAGE_SIZE,
  parseTags,
  type Contact,
  type ContactPage,
  type ContactStats,
  type DuplicateGroup,
  type DuplicatePage,
} from "./model";

const DUPLICATE_PAGE = 100;
const digitsOf = (phone: string | null | undefined) => (phone ?? "").replace(/\D/g, "");

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

type MenuProps = {
  contact: Contact;
  duplicate: boolean;
  onEdit: () => void;
  onMessage: () => void;
  onMerge: () => void;
  onConsent: () => void;
  onDelete: () => void;
};

function RowMenu({ contact, duplicate, onEdit, onMessage, onMerge, onConsent, onDelete }: MenuProps) {
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => box.current && !box.current.contains(e.target as Node) && setOpen(false);
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && setOpen(false);
    document.addEventListener("mousedown", onDown);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("mousedown", onDown);
      document.removeEventListener("keydown", onKey);
    };
  }, [open]);
  const item = (label: string, action: () => void, opts: { disabled?: boolean; danger?: boolean; title?: string } = {}) => (
    <button
      type="button"
      role="menuitem"
      disabled={opts.disabled}
      title={opts.title}
      onClick={() => {
        setOpen(false);
        action();
      }}
      className={cx(
        "block w-full px-3 py-2 text-left text-sm hover:bg-slate-100 disabled:cursor-not-allowed disabled:opacity-40 disabled:hover:bg-transparent",
        opts.danger && "text-red-700",
      )}
    >
      {label}
    </button>
  );
  return (
    <div ref={box} className="relative inline-block text-left">
      <button
        type="button"
        aria-label={`Actions for ${contactName(contact)}`}
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
        className="rounded-lg px-2 py-1 text-slate-600 hover:bg-slate-100"
      >
        ⋯
      </button>
      {open && (
        <div
          role="menu"
          className="absolute right-0 z-20 mt-1 w-52 overflow-hidden rounded-lg border border-slate-200 bg-white py-1 shadow-lg"
        >
          {item("Edit Contact", onEdit)}
          {item("Send Message", onMessage, {
            disabled: !contact.phone || contact.status === "opted_out",
            title: !contact.phone
              ? "This contact doesn't have a phone number."
              : contact.status === "opted_out"
                ? "This contact opted out."
                : undefined,
          })}
          {duplicate && item("Merge Duplicates", onMerge)}
          {item("View consent history", onConsent)}
          {item("Delete Contact", onDelete, { danger: true })}
        </div>
      )}
    </div>
  );
}

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

export function ContactsPage() {
  useSignals();
  const user = auth.value.user!;
  const locale = user.locale;
  const navigate = useNavigate();

  const [search, setSearch] = useState("");
  const [q, setQ] = useState("");
  const [page, setPage] = useState(1);
  const [showDuplicates, setShowDuplicates] = useState(false);
  const [dupPage, setDupPage] = useState(1);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [tagText, setTagText] = useState("");
  const [bulkBusy, setBulkBusy] = useState(false);
  const [editing, setEditing] = useState<Contact | null>(null);
  const [dialogOpen, setDialogOpen] = useState(false);
  const [importOpen, setImportOpen] = useState(false);
  const [mergeGroup, setMergeGroup] = useState<DuplicateGroup | null>(null);
  const [consentFor, setConsentFor] = useState<Contact | null>(null);
  // Deleting asks once more in the app's own dialog: who goes, and that it cannot be undone.
  const [deleting, setDeleting] = useState<{ label: string; many: boolean; run: () => Promise<void> } | null>(null);
  const [exporting, setExporting] = useState(false);

  useEffect(() => {
    const t = setTimeout(() => {
      setQ(search.trim());
      setPage(1);
    }, 250);
    return () => clearTimeout(t);
  }, [search]);

  const list = useApi<ContactPage>(
    `/api/contacts?page=${page}&pageSize=${PAGE_SIZE}&sort=createdAt&order=desc${q ? `&q=${encodeURIComponent(q)}` : ""}`,
  );
  const stats = useApi<ContactStats>("/api/contacts/stats");
  const dupes = useApi<DuplicatePage>(`/api/contacts/duplicates?page=${showDuplicates ? dupPage : 1}&pageSize=${DUPLICATE_PAGE}`);

  // The banner always shows the first groups; remember them while the duplicates view pages on.
  const [bannerGroups, setBannerGroups] = useState<DuplicateGroup[]>([]);
  useEffect(() => {
    if (dupes.data && (!showDuplicates || dupPage === 1)) setBannerGroups(dupes.data.data);
  }, [dupes.data, showDuplicates, dupPage]);
  const duplicateTotal = dupes.data?.total ?? 0;
  const duplicatePhones = useMemo(() => new Set((dupes.data?.data ?? []).map((g) => digitsOf(g.phone))), [dupes.data]);

  const refresh = useCallback(() => {
    void list.reload();
    void stats.reload();
    void dupes.reload();
    setSelected(new Set());
  }, [list, stats, dupes]);

  const rows: Contact[] = showDuplicates ? (dupes.data?.data ?? []).flatMap((g) => g.contacts) : (list.data?.data ?? []);
  const loading = showDuplicates ? dupes.loading : list.loading;
  const allSelected = rows.length > 0 && rows.every((c) => selected.has(c.id));

  const isDuplicate = (c: Contact) =>
    !!c.phone &&
    (duplicatePhones.has(digitsOf(c.phone)) ||
      (showDuplicates && rows.filter((r) => digitsOf(r.phone) === digitsOf(c.phone)).length > 1));

  /** The duplicate group of a contact's phone: from the loaded groups, else from a search of its digits. */
  const openMerge = async (c: Contact) => {
    const digits = digitsOf(c.phone);
    const known = (dupes.data?.data ?? []).find((g) => digitsOf(g.phone) === digits);
    if (known) return setMergeGroup(known);
    try {
      const found = await api<ContactPage>(`/api/contacts?page=1&pageSize=${PAGE_SIZE}&q=${digits}`);
      const same = found.data.filter((x) => digitsOf(x.phone) === digits);
      if (same.length > 1) setMergeGroup({ phone: c.phone!, contacts: same });
    } catch (err) {
      toast({ title: "Error", description: errorMessage(err, "Failed to load duplicates"), variant: "destructive" });
    }
  };

  const deleteContact = async (c: Contact) => {
    try {
      await api(`/api/contacts/${c.id}`, { method: "DELETE" });
      toast({ title: "Contact deleted" });
      refresh();
    } catch {
      toast({ title: "Error", description: "Failed to delete contact. Please try again.", variant: "destructive" });
    }
  };

  const sendMessage = (c: Contact) => {
    if (!c.phone) {
      toast({ title: "No phone number", description: "This contact doesn't have a phone number.", variant: "destructive" });
      return;
    }
    // Until Chat & Replies exists, a message to one contact is a campaign to that contact alone.
    void navigate({ to: "/simple-campaign-wizard", search: { contactId: c.id, name: contactName(c) } as never });
  };

  const bulkDelete = async () => {
    const ids = [...selected];
    if (!ids.length) return;
    setBulkBusy(true);
    try {
      await api("/api/contacts/bulk-delete", { body: { contactIds: ids } });
      toast({ title: "Contacts deleted", description: `${ids.length} contact${ids.length === 1 ? "" : "s"} deleted.` });
      refresh();
    } catch {
      toast({ title: "Error", description: "Failed to delete items", variant: "destructive" });
    } finally {
      setBulkBusy(false);
    }
  };

  const bulkTag = async () => {
    const tags = parseTags(tagText);
    if (!tags.length) {
      toast({ title: "Error", description: "Enter at least one tag", variant: "destructive" });
      return;
    }
    setBulkBusy(true);
    try {
      await api("/api/contacts/bulk-tag", { body: { contactIds: [...selected], tags, action: "add" } });
      toast({
        title: "Tags added",
        description: `Added ${tags.join(", ")} to ${selected.size} contact${selected.size === 1 ? "" : "s"}.`,
      });
      setTagText("");
      refresh();
    } catch {
      toast({ title: "Error", description: "Failed to tag contacts", variant: "destructive" });
    } finally {
      setBulkBusy(false);
    }
  };

  const exportCsv = async () => {
    setExporting(true);
    try {
      await downloadExport(q);
    } catch (err) {
      toast({ title: "Error", description: errorMessage(err, "Failed to export contacts"), variant: "destructive" });
    } finally {
      setExporting(false);
    }
  };

  const toggle = (id: string) =>
    setSelected((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  const s = stats.data;
  const total = list.data?.total ?? 0;
  const wide = useWideScreen();

  const menuFor = (c: Contact) => (
    <RowMenu
      contact={c}
      duplicate={isDuplicate(c)}
      onEdit={() => {
        setEditing(c);
        setDialogOpen(true);
      }}
      onMessage={() => sendMessage(c)}
      onMerge={() => void openMerge(c)}
      onConsent={() => setConsentFor(c)}
      onDelete={() => setDeleting({ label: contactName(c), many: false, run: () => deleteContact(c) })}
    />
  );

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold">Contacts</h1>
          <p className="text-slate-600">Your customers, their numbers and their consent.</p>
        </div>
        <div className="flex flex-wrap gap-2">
          <Button variant="secondary" onClick={exportCsv} disabled={exporting}>
            {exporting && <Spinner />}
            Export CSV
          </Button>
          <Button variant="secondary" onClick={() => setImportOpen(true)}>
            Import Contacts
          </Button>
          <Button
            onClick={() => {
              setEditing(null);
              setDialogOpen(true);
            }}
          >
            Add Customer
          </Button>
        </div>
      </div>

      {stats.error && <p className="text-sm text-red-600">Could not load the counters: {stats.error.message}</p>}
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-3">
        <Counter label="Total" value={s?.total} locale={locale} />
        <Counter label="Email Contacts" value={s?.email} locale={locale} />
        <Counter label="SMS Contacts" value={s?.sms} locale={locale} />
      </div>

      <DuplicateBanner
        groups={bannerGroups}
        total={duplicateTotal}
        showingDuplicates={showDuplicates}
        locale={locale}
        onToggle={() => {
          setShowDuplicates((v) => !v);
          setDupPage(1);
          setSelected(new Set());
        }}
        onMerge={setMergeGroup}
      />

      <Card>
        <div className="flex flex-wrap items-center gap-3 border-b border-slate-200 p-4">
          <Input
            type="search"
            aria-label="Search contacts"
            placeholder="Search by name, email or phone"
            className="max-w-sm"
            value={search}
            disabled={showDuplicates}
            onChange={(e) => setSearch(e.target.value)}
          />
          {showDuplicates && <span className="text-sm text-slate-600">Showing contacts that share a phone number</span>}
          {loading && <Spinner className="text-slate-400" />}
        </div>

        {selected.size > 0 && (
          <div
            role="toolbar"
            aria-label="Bulk actions"
            className="flex flex-wrap items-center gap-3 border-b border-slate-200 bg-brand-50 px-4 py-3"
          >
            <span className="text-sm font-medium">{selected.size} selected</span>
            <Button
              variant="danger"
              onClick={() =>
                setDeleting({
                  label: `${selected.size} selected contact${selected.size === 1 ? "" : "s"}`,
                  many: selected.size > 1,
                  run: bulkDelete,
                })
              }
              disabled={bulkBusy}
            >
              Delete selected
            </Button>
            <Input
              aria-label="Tags to add"
              placeholder="tag1, tag2"
              className="max-w-48"
              value={tagText}
              onChange={(e) => setTagText(e.target.value)}
              onKeyDown={(e) => e.key === "Enter" && void bulkTag()}
            />
            <Button variant="secondary" onClick={bulkTag} disabled={bulkBusy || parseTags(tagText).length === 0}>
              Add tags
            </Button>
            <Button variant="ghost" onClick={() => setSelected(new Set())}>
              Clear
            </Button>
          </div>
        )}

        {list.error && !showDuplicates && (
          <p className="p-4 text-sm text-red-600">Could not load contacts: {list.error.message}</p>
        )}

        {/* Small screens: one card per contact, so the phone and the actions stay on screen. */}
        {!wide && (
          <ul className="divide-y divide-slate-100" aria-label="Contacts" data-testid="contact-cards">
            {rows.map((c) => (
              <li key={c.id} className={cx("flex items-start gap-3 px-4 py-3", selected.has(c.id) && "bg-brand-50/50")}>
                <input
                  type="checkbox"
                  className="mt-1"
                  aria-label={`Select ${contactName(c)}`}
                  checked={selected.has(c.id)}
                  onChange={() => toggle(c.id)}
                />
                <div className="min-w-0 flex-1 text-sm">
                  <div className="flex flex-wrap items-center gap-2">
                    <span className="font-medium break-words">{contactName(c)}</span>
                    {c.status === "opted_out" && (
                      <span className="rounded-full bg-red-100 px-2 py-0.5 text-xs font-medium text-red-700">Opted out</span>
                    )}
                  </div>
                  {c.phone && <p className="text-slate-700">{formatPhone(c.phone)}</p>}
                  {c.email && <p className="truncate text-slate-600">{c.email}</p>}
                  <p className="text-xs text-slate-500">
                    {contactType(c)} · Added {formatDate(new Date(c.createdAt), user.dateFormat, user.timezone)}
                  </p>
                  {c.tags.length > 0 && (
                    <div className="mt-1 flex flex-wrap gap-1">
                      {c.tags.slice(0, 4).map((t) => (
                        <span key={t} className="rounded bg-slate-100 px-1.5 text-xs text-slate-600">
                          {t}
                        </span>
                      ))}
                      {c.tags.length > 4 && <span className="text-xs text-slate-500">+{c.tags.length - 4}</span>}
                    </div>
                  )}
                </div>
                {menuFor(c)}
              </li>
            ))}
          </ul>
        )}

        {wide && (
          <div className="overflow-x-auto">
            <table className="w-full text-left text-sm">
              <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
                <tr>
                  <th className="w-10 px-4 py-3">
                    <input
                      type="checkbox"
                      aria-label="Select all on this page"
                      checked={allSelected}
                      onChange={() => setSelected(allSelected ? new Set() : new Set(rows.map((c) => c.id)))}
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
                        onChange={() => toggle(c.id)}
                      />
                    </td>
                    <td className="px-4 py-3">
                      <div className="flex flex-wrap items-center gap-2">
                        <span className="font-medium">{contactName(c)}</span>
                        {c.status === "opted_out" && (
                          <span className="rounded-full bg-red-100 px-2 py-0.5 text-xs font-medium text-red-700">Opted out</span>
                        )}
                      </div>
                      {c.tags.length > 0 && (
                        <div className="mt-1 flex flex-wrap gap-1">
                          {c.tags.slice(0, 4).map((t) => (
                            <span key={t} className="rounded bg-slate-100 px-1.5 text-xs text-slate-600">
                              {t}
                            </span>
                          ))}
                          {c.tags.length > 4 && <span className="text-xs text-slate-500">+{c.tags.length - 4}</span>}
                        </div>
                      )}
                    </td>
                    <td className="px-4 py-3 text-slate-600">{c.email || "—"}</td>
                    <td className="whitespace-nowrap px-4 py-3 text-slate-600">{c.phone ? formatPhone(c.phone) : "—"}</td>
                    <td className="whitespace-nowrap px-4 py-3">
                      <span className="rounded-full bg-slate-100 px-2 py-0.5 text-xs text-slate-700">{contactType(c)}</span>
                    </td>
                    <td className="whitespace-nowrap px-4 py-3 text-slate-600">
                      {formatDate(new Date(c.createdAt), user.dateFormat, user.timezone)}
                    </td>
                    <td className="px-4 py-3 text-right">{menuFor(c)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}

        {!loading && rows.length === 0 && !list.error && (
          <div className="p-10 text-center">
            {q && !showDuplicates ? (
              <p className="text-slate-600">No contacts match “{q}”.</p>
            ) : (
              <>
                <p className="font-medium">No contacts yet</p>
                <p className="mt-1 text-sm text-slate-600">Add your first customer or import a CSV file to get started.</p>
                <div className="mt-4 flex justify-center gap-2">
                  <Button variant="secondary" onClick={() => setImportOpen(true)}>
                    Import Contacts
                  </Button>
                  <Button
                    onClick={() => {
                      setEditing(null);
                      setDialogOpen(true);
                    }}
                  >
                    Add Customer
                  </Button>
                </div>
              </>
            )}
          </div>
        )}

        {showDuplicates
          ? duplicateTotal > DUPLICATE_PAGE && (
              <Pagination page={dupPage} pageSize={DUPLICATE_PAGE} total={duplicateTotal} onPage={setDupPage} locale={locale} />
            )
          : total > 0 && (
              <Pagination
                page={page}
                pageSize={PAGE_SIZE}
                total={total}
                capped={!!list.data?.totalCapped}
                locale={locale}
                onPage={(p) => {
                  setPage(p);
                  setSelected(new Set());
                }}
              />
            )}
      </Card>

      <ContactDialog open={dialogOpen} contact={editing} locale={locale} onClose={() => setDialogOpen(false)} onSaved={refresh} />
      <ImportDialog open={importOpen} onClose={() => setImportOpen(false)} onImported={refresh} locale={locale} />
      <MergeDialog group={mergeGroup} onClose={() => setMergeGroup(null)} onMerged={refresh} />
      {deleting && (
        <ConfirmDialog
          title={deleting.many ? "Delete contacts" : "Delete contact"}
          confirmLabel="Delete"
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            await deleting.run();
            setDeleting(null);
          }}
        >
          <p>
            Delete <strong>{deleting.label}</strong>? Their consent history goes with them. This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
      {consentFor && (
        <ConsentDialog
          contact={consentFor}
          dateFormat={user.dateFormat}
          timeZone={user.timezone}
          onClose={() => setConsentFor(null)}
          onChanged={refresh}
        />
      )}
    </div>
  );
}
