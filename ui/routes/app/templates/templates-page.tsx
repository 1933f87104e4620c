import { useNavigate } from "@tanstack/react-router";
import { useState } from "react";
import { fieldsOf } from "../../../../shared/personalisation/render";
import {
  categoryLabel,
  countTemplateUse,
  createTemplate,
  deleteTemplate,
  saveTemplate,
  TEMPLATE_CATEGORIES,
  useTemplates,
  type TemplateCategory,
  type TemplateView,
} from "../../../api/templates";
import { AttachmentPicker, type Attachment } from "../../../components/attachment-picker";
import { Badge } from "../../../components/badge";
import { IMAGE } from "../../../components/chat-media";
import { ConfirmDialog } from "../../../components/confirm-dialog";
import { TabPanel, Tabs } from "../../../components/tabs";
import { Alert, Button, Card, Field, Input, Modal, Select, Spinner } from "../../../components/ui";
import { errorMessage } from "../../../lib/api";
import { toast } from "../../../lib/toast";
import { submitWith, useMutation } from "../../../lib/use-mutation";
import { SegmentCounter } from "../campaigns/segment-counter";
import { MergeFieldInserter } from "./merge-fields";

type Tab = TemplateCategory | "all";
const TABS: { value: Tab; label: string }[] = [{ value: "all", label: "All" }, ...TEMPLATE_CATEGORIES];

/**
 * The wizard, opened on a template's text and copies of its pictures and files (the use is counted first, and makes
 * the copies: handed over in the history entry's state, since they are not the URL's to carry).
 */
export function useOpenInWizard() {
  const navigate = useNavigate();
  return async (t: Pick<TemplateView, "id" | "content">) => {
    try {
      const used = await countTemplateUse(t.id);
      void navigate({ to: "/simple-campaign-wizard", search: { message: t.content } as never, state: (s) => ({ ...s, attachments: used.attachments }) });
    } catch (err) {
      toast({ title: "Error", description: errorMessage(err, "Could not use the template"), variant: "destructive" });
    }
  };
}

/** /templates: search, the category dropdown and tabs, the cards, and the create/edit dialog. */
export function TemplatesPage() {
  const [q, setQ] = useState("");
  const [tab, setTab] = useState<Tab>("all");
  const list = useTemplates({ q: q.trim(), category: tab === "all" ? "" : tab });
  const [editing, setEditing] = useState<TemplateView | "new" | null>(null);
  const [deleting, setDeleting] = useState<TemplateView | null>(null);
  const openInWizard = useOpenInWizard();

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h1 className="text-2xl font-bold text-slate-900">SMS Templates</h1>
          <p className="text-sm text-slate-600">Reusable messages with merge fields such as {"{firstName|there}"}.</p>
        </div>
        <Button onClick={() => setEditing("new")}>Create Template</Button>
      </div>

      <div className="flex flex-wrap gap-3">
        <Input className="max-w-sm" aria-label="Search templates" placeholder="Search templates…" value={q} onChange={(e) => setQ(e.target.value)} />
        <Select aria-label="Category" className="!w-48" value={tab} onChange={(e) => setTab(e.target.value as Tab)}>
          {TABS.map((t) => (
            <option key={t.value} value={t.value}>
              {t.value === "all" ? "All categories" : t.label}
            </option>
          ))}
        </Select>
      </div>

      <Tabs tabs={TABS} value={tab} onChange={setTab} idPrefix="templates" label="Template categories" />
      <TabPanel idPrefix="templates" value={tab}>
        {list.error && <Alert>{errorMessage(list.error, "Could not load the templates")}</Alert>}
        {list.loading && !list.data && <Spinner className="text-slate-400" />}
        {list.data && list.data.data.length === 0 && (
          <Card className="p-8 text-center text-sm text-slate-600">
            {q.trim() ? "No template matches your search." : "No templates in this category yet."}
          </Card>
        )}
        <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
          {list.data?.data.map((t) => (
            <Card key={t.id} className="flex flex-col p-4">
              <div data-testid="template-card" className="flex flex-1 flex-col">
                <div className="flex items-start justify-between gap-2">
                  <h2 className="font-semibold text-slate-900">{t.name}</h2>
                  <Badge tone={t.builtIn ? "blue" : "slate"}>{categoryLabel(t.category)}</Badge>
                </div>
                <p className="mt-2 flex-1 text-sm whitespace-pre-wrap text-slate-700">{t.content}</p>
                {t.media.length > 0 && (
                  <ul className="mt-2 flex flex-wrap gap-1" aria-label={`Attachments of ${t.name}`} data-testid="template-media">
                    {t.media.map((m) => (
                      <li key={m.id}>
                        {IMAGE.test(m.contentType) ? (
                          <img src={m.url} alt={m.filename} className="h-12 w-12 rounded object-cover" />
                        ) : (
                          <span className="block rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-700">{m.filename}</span>
                        )}
                      </li>
                    ))}
                  </ul>
                )}
                {t.variables.length > 0 && (
                  <p className="mt-2 flex flex-wrap gap-1">
                    {t.variables.map((v) => (
                      <code key={v} className="rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-700">
                        {`{${v}}`}
                      </code>
                    ))}
                  </p>
                )}
                <p className="mt-2 text-xs text-slate-500" data-testid="usage-count">
                  {t.builtIn ? "Sample · " : ""}Used {t.usageCount} {t.usageCount === 1 ? "time" : "times"}
                </p>
                <div className="mt-3 flex gap-2">
                  <Button className="!px-3 !py-1 text-xs" onClick={() => void openInWizard(t)}>
                    Use This Template
                  </Button>
                  {!t.builtIn && (
                    <>
                      <Button variant="secondary" className="!px-3 !py-1 text-xs" onClick={() => setEditing(t)}>
                        Edit
                      </Button>
                      <Button variant="ghost" className="!px-3 !py-1 text-xs" onClick={() => setDeleting(t)}>
                        Delete
                      </Button>
                    </>
                  )}
                </div>
              </div>
            </Card>
          ))}
        </div>
      </TabPanel>

      {editing && (
        <TemplateDialog
          template={editing === "new" ? null : editing}
          defaultCategory={tab === "all" ? "custom" : tab}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            void list.reload();
          }}
        />
      )}
      {deleting && (
        <ConfirmDialog
          title="Delete template"
          confirmLabel="Delete"
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            await deleteTemplate(deleting.id);
            setDeleting(null);
            toast({ title: "Template deleted" });
            void list.reload();
          }}
        >
          Delete “{deleting.name}”? Messages already sent with it are not changed.
        </ConfirmDialog>
      )}
    </div>
  );
}

function TemplateDialog({
  template,
  defaultCategory,
  onClose,
  onSaved,
}: {
  template: TemplateView | null;
  defaultCategory: TemplateCategory;
  onClose: () => void;
  onSaved: () => void;
}) {
  const [name, setName] = useState(template?.name ?? "");
  const [category, setCategory] = useState<TemplateCategory>(template?.category ?? defaultCategory);
  const [content, setContent] = useState(template?.content ?? "");
  const [media, setMedia] = useState<Attachment[]>(template?.media ?? []);
  const variables = fieldsOf(content);
  const input = () => ({ name, category, content, mediaIds: media.map((m) => m.id) });
  const save = useMutation(() => (template ? saveTemplate(template.id, input()) : createTemplate(input())), {
    onSuccess: onSaved,
    success: template ? "Template saved" : "Template created",
    fallback: "Failed to create template",
  });
  const { error, setError, busy: saving } = save;

  const submit = () => {
    if (!name.trim() || !content.trim()) return setError("Name and content are required");
    return save.run();
  };

  return (
    <Modal open title={template ? "Edit Template" : "Create Template"} onClose={onClose}>
      <form className="space-y-4" onSubmit={submitWith(submit)}>
        {error && <Alert>{error}</Alert>}
        <Field label="Name" htmlFor="template-name">
          <Input id="template-name" maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
        </Field>
        <Field label="Category" htmlFor="template-category">
          <Select id="template-category" value={category} onChange={(e) => setCategory(e.target.value as TemplateCategory)}>
            {TEMPLATE_CATEGORIES.map((c) => (
              <option key={c.value} value={c.value}>
                {c.label}
              </option>
            ))}
          </Select>
        </Field>
        <Field label="Message" htmlFor="template-content">
          <textarea
            id="template-content"
            rows={5}
            maxLength={1600}
            value={content}
            onChange={(e) => setContent(e.target.value)}
            className="w-full rounded-lg border border-slate-300 px-3 py-2 text-sm shadow-sm focus:border-brand-500 focus:outline-none focus:ring-2 focus:ring-brand-500/30"
          />
          <MergeFieldInserter idPrefix="template" onInsert={(token) => setContent((c) => c + token)} />
          <SegmentCounter content={content} appendOptOut={false} />
          <p className="text-xs text-slate-600" data-testid="template-variables">
            Variables: {variables.length ? variables.map((v) => `{${v}}`).join(", ") : "none"}
          </p>
        </Field>
        <div className="space-y-1" data-testid="template-attachments">
          <p className="text-sm font-medium text-slate-700">Pictures and files</p>
          <AttachmentPicker value={media} onChange={setMedia} disabled={saving} />
          <p className="text-xs text-slate-500">Each message written from this template gets its own copy of them.</p>
        </div>
        <div className="flex justify-end gap-2">
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={saving}>
            {saving ? <Spinner /> : template ? "Save" : "Create Template"}
          </Button>
        </div>
      </form>
    </Modal>
  );
}
