import { useState } from "react";
import { categoryLabel, countTemplateUse, TEMPLATE_CATEGORIES, useTemplates, type TemplateCategory, type TemplateView, type UsedTemplate } from "../../../api/templates";
import { Alert, Button, Input, Modal, Select, Spinner } from "../../../components/ui";
import { errorMessage } from "../../../lib/api";
import { useMutation } from "../../../lib/use-mutation";

/**
 * "Use a template": a button that opens the account's templates and the samples (search, category), and hands the
 * chosen one to `onPick` after counting the use on the server. For any composer: the campaign wizard and dialog,
 * /advanced-sms and the chat composer.
 */
export function TemplatePicker({
  onPick,
  label = "Use a template",
  className,
}: {
  onPick: (template: UsedTemplate) => void;
  label?: string;
  className?: string;
}) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button variant="secondary" className={className ?? "!px-2 !py-1 text-xs"} onClick={() => setOpen(true)}>
        {label}
      </Button>
      {open && (
        <Modal open title="Choose a template" onClose={() => setOpen(false)}>
          <TemplateList
            onPick={(t) => {
              setOpen(false);
              onPick(t);
            }}
          />
        </Modal>
      )}
    </>
  );
}

function TemplateList({ onPick }: { onPick: (t: UsedTemplate) => void }) {
  const [q, setQ] = useState("");
  const [category, setCategory] = useState<TemplateCategory | "">("");
  const list = useTemplates({ q: q.trim(), category });
  // Counted as used (the server answers the text and copies of its attachments), then handed to the caller.
  const use = useMutation((t: TemplateView) => countTemplateUse(t.id), { onSuccess: onPick, fallback: "Could not use the template" });
  const { error } = use;
  const using = use.args?.[0].id ?? null;
  return (
    <div className="space-y-3" data-testid="template-picker">
      <div className="flex gap-2">
        <Input aria-label="Search templates" placeholder="Search templates" value={q} onChange={(e) => setQ(e.target.value)} />
        <Select aria-label="Category" className="!w-40" value={category} onChange={(e) => setCategory(e.target.value as TemplateCategory | "")}>
          <option value="">All categories</option>
          {TEMPLATE_CATEGORIES.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </Select>
      </div>
      {error && <Alert>{error}</Alert>}
      {list.error && <Alert>{errorMessage(list.error, "Could not load the templates")}</Alert>}
      {list.loading && !list.data && <Spinner className="text-slate-400" />}
      {list.data && list.data.data.length === 0 && <p className="text-sm text-slate-500">No template matches.</p>}
      <ul className="max-h-80 space-y-2 overflow-y-auto">
        {list.data?.data.map((t) => (
          <li key={t.id} className="rounded-lg border border-slate-200 p-3">
            <div className="flex items-start justify-between gap-2">
              <div className="min-w-0">
                <p className="font-medium text-slate-900">{t.name}</p>
                <p className="text-xs text-slate-500">{categoryLabel(t.category)}</p>
              </div>
              <Button className="!px-3 !py-1 text-xs" disabled={using !== null} onClick={() => void use.run(t)} aria-label={`Use ${t.name}`}>
                {using === t.id ? <Spinner /> : "Use"}
              </Button>
            </div>
            <p className="mt-1 text-sm whitespace-pre-wrap text-slate-700">{t.content}</p>
          </li>
        ))}
      </ul>
    </div>
  );
}
