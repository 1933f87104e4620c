import { useSignals } from "@preact/signals-react/runtime";
import { useCallback, useEffect, useMemo, useState } from "react";
import * as contactsApi from "../../../api/contacts";
import { ContactChatPanel } from "../../../components/chat-contact-panel";
import { ConfirmDialog } from "../../../components/confirm-dialog";
import { Pagination } from "../../../components/pagination";
import { Card } from "../../../components/ui";
import { errorMessage } from "../../../lib/api";
import { auth } from "../../../lib/auth";
import { toast } from "../../../lib/toast";
import { useMutation } from "../../../lib/use-mutation";
import { AddToDrip } from "../automation/add-to-drip";
import { BulkActions } from "./bulk-actions";
import { ConsentDialog } from "./consent-dialog";
import { ContactDialog } from "./contact-dialog";
import { ContactList, type RowActions } from "./contact-list";
import { DuplicateBanner, MergeDialog } from "./duplicates";
import { ImportDialog } from "./import-dialog";
import { contactName, downloadExport, PAGE_SIZE, parseTags, type Contact, type DuplicateGroup } from "./model";
import { ContactsHeader, Counters, EmptyState, SearchBar, SORTS, type SortKey } from "./toolbar";

const DUPLICATE_PAGE = 100;
const digitsOf = (phone: string | null | undefined) => (phone ?? "").replace(/\D/g, "");

/** /contacts: counters, duplicates, search, the list (paged), bulk actions and the dialogs of one contact. */
export function ContactsPage() {
  useSignals();
  const user = auth.value.user!;
  const locale = user.locale;

  const [search, setSearch] = useState("");
  const [q, setQ] = useState("");
  const [page, setPage] = useState(1);
  const [sort, setSort] = useState<SortKey>("newest");
  const [showDuplicates, setShowDuplicates] = useState(false);
  const [dupPage, setDupPage] = useState(1);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [tagText, setTagText] = useState("");
  const [editing, setEditing] = useState<Contact | null>(null);
  const [dialogOpen, setDialogOpen] = useState(false);
  const [importOpen, setImportOpen] = useState(false);
  const [mergeGroup, setMergeGroup] = useState<DuplicateGroup | null>(null);
  const [consentFor, setConsentFor] = useState<Contact | null>(null);
  // Deleting asks once more in the app's own dialog: who goes, and that it cannot be undone.
  const [deleting, setDeleting] = useState<{ label: string; many: boolean; run: () => Promise<void> } | null>(null);
  const [chatWith, setChatWith] = useState<Contact | null>(null);

  useEffect(() => {
    const t = setTimeout(() => {
      setQ(search.trim());
      setPage(1);
    }, 250);
    return () => clearTimeout(t);
  }, [search]);

  const list = contactsApi.useContacts({ page, pageSize: PAGE_SIZE, q, sort: SORTS[sort].sort, order: SORTS[sort].order });
  const stats = contactsApi.useContactStats();
  const dupes = contactsApi.useDuplicates({ page: showDuplicates ? dupPage : 1, pageSize: DUPLICATE_PAGE });

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
      const found = await contactsApi.fetchContacts({ page: 1, pageSize: PAGE_SIZE, q: digits });
      const same = found.data.filter((x) => digitsOf(x.phone) === digits);
      if (same.length > 1) setMergeGroup({ phone: c.phone!, contacts: same });
    } catch (err) {
      toast({ title: "Error", description: errorMessage(err, "Failed to load duplicates"), variant: "destructive" });
    }
  };

  const deleteContact = async (c: Contact) => {
    try {
      await contactsApi.deleteContact(c.id);
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
    setChatWith(c);
  };

  // The bulk bar's two changes; their failures read as one plain sentence each, as before.
  const bulkDeleting = useMutation((ids: string[]) => contactsApi.deleteContacts(ids), {
    onSuccess: () => refresh(),
    success: (_, ids) => ({ title: "Contacts deleted", description: `${ids.length} contact${ids.length === 1 ? "" : "s"} deleted.` }),
    failureToast: () => ({ title: "Error", description: "Failed to delete items", variant: "destructive" }),
  });
  const tagging = useMutation((ids: string[], tags: string[]) => contactsApi.tagContacts(ids, tags), {
    onSuccess: () => {
      setTagText("");
      refresh();
    },
    success: (_, ids, tags) => ({
      title: "Tags added",
      description: `Added ${tags.join(", ")} to ${ids.length} contact${ids.length === 1 ? "" : "s"}.`,
    }),
    failureToast: () => ({ title: "Error", description: "Failed to tag contacts", variant: "destructive" }),
  });
  const bulkBusy = bulkDeleting.busy || tagging.busy;

  const bulkDelete = async () => {
    const ids = [...selected];
    if (!ids.length || bulkBusy) return;
    await bulkDeleting.run(ids);
  };

  const bulkTag = async () => {
    const tags = parseTags(tagText);
    if (!tags.length) {
      toast({ title: "Error", description: "Enter at least one tag", variant: "destructive" });
      return;
    }
    if (bulkBusy) return;
    await tagging.run([...selected], tags);
  };

  const exporting = useMutation(() => downloadExport(q), { fallback: "Failed to export contacts", failureToast: "Error" });

  const toggle = (id: string) =>
    setSelected((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  const total = list.data?.total ?? 0;
  const openNew = () => {
    setEditing(null);
    setDialogOpen(true);
  };
  const actions: RowActions = {
    isDuplicate,
    onEdit: (c) => {
      setEditing(c);
      setDialogOpen(true);
    },
    onMessage: sendMessage,
    onMerge: (c) => void openMerge(c),
    onConsent: setConsentFor,
    onDelete: (c) => setDeleting({ label: contactName(c), many: false, run: () => deleteContact(c) }),
  };

  return (
    <div className="space-y-6">
      <ContactsHeader exporting={exporting.busy} onExport={() => void exporting.run()} onImport={() => setImportOpen(true)} onAdd={openNew} />
      <Counters stats={stats.data} error={stats.error} locale={locale} />

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
        <SearchBar
          value={search}
          onChange={setSearch}
          sort={sort}
          onSort={(s) => {
            setSort(s);
            setPage(1);
          }}
          showingDuplicates={showDuplicates}
          loading={loading}
        />

        {selected.size > 0 && (
          <BulkActions
            count={selected.size}
            busy={bulkBusy}
            tagText={tagText}
            onTagText={setTagText}
            onDelete={() =>
              setDeleting({
                label: `${selected.size} selected contact${selected.size === 1 ? "" : "s"}`,
                many: selected.size > 1,
                run: bulkDelete,
              })
            }
            onTag={() => void bulkTag()}
            onClear={() => setSelected(new Set())}
          >
            <AddToDrip contactIds={[...selected]} onDone={() => setSelected(new Set())} />
          </BulkActions>
        )}

        {list.error && !showDuplicates && (
          <p className="p-4 text-sm text-red-600">Could not load contacts: {list.error.message}</p>
        )}

        <ContactList
          rows={rows}
          selected={selected}
          onToggle={toggle}
          onSelectAll={(all) => setSelected(all ? new Set(rows.map((c) => c.id)) : new Set())}
          actions={actions}
          dateFormat={user.dateFormat}
          timeZone={user.timezone}
        />

        {!loading && rows.length === 0 && !list.error && (
          <EmptyState query={showDuplicates ? "" : q} onImport={() => setImportOpen(true)} onAdd={openNew} />
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
      {chatWith?.phone && (
        <ContactChatPanel
          key={chatWith.id}
          contact={{ name: contactName(chatWith), phone: chatWith.phone, optedOut: chatWith.status === "opted_out" }}
          onClose={() => setChatWith(null)}
        />
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
