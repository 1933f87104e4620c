import { useState } from "react";
import * as rulesApi from "../../../api/automation";
import type { Rule } from "../../../api/automation";
import { Badge } from "../../../components/badge";
import { useConfirm } from "../../../components/confirm-dialog";
import { Alert, Button, Card, Spinner } from "../../../components/ui";
import { errorMessage } from "../../../lib/api";
import { toast } from "../../../lib/toast";
import { RuleDialog, triggerLabel } from "./rules-dialog";
import { accountTime } from "../../../lib/format";

/** The spec's active switch. */
function Switch({ on, label, onChange }: { on: boolean; label: string; onChange: (on: boolean) => void }) {
  return (
    <button
      type="button"
      role="switch"
      aria-checked={on}
      aria-label={label}
      onClick={() => onChange(!on)}
      className={`relative inline-flex h-6 w-11 shrink-0 items-center rounded-full transition-colors ${on ? "bg-brand-600" : "bg-slate-300"}`}
    >
      <span className={`inline-block h-5 w-5 transform rounded-full bg-white shadow transition-transform ${on ? "translate-x-5" : "translate-x-0.5"}`} />
    </button>
  );
}

const OUTCOME_TONE = { done: "green", skipped: "slate", failed: "red" } as const;

/** Who the rule fired for, when, and what it did or why it did nothing. */
function Runs({ rule }: { rule: Rule }) {
  const runs = rulesApi.useRuleRuns(rule.id);
  if (runs.error) return <Alert>{errorMessage(runs.error, "Could not load the history")}</Alert>;
  if (!runs.data) return <Spinner className="text-slate-400" />;
  if (!runs.data.data.length) return <p className="text-sm text-slate-600">It has not fired yet.</p>;
  return (
    <ul className="divide-y divide-slate-100 text-sm" aria-label={`History of ${rule.name}`}>
      {runs.data.data.map((r) => (
        <li key={r.id} className="flex flex-wrap items-start gap-2 py-2" data-testid="rule-run">
          <Badge tone={OUTCOME_TONE[r.outcome]}>{r.outcome}</Badge>
          <span className="text-slate-500">{accountTime(r.createdAt)}</span>
          <span className="text-slate-800">{r.detail.join(" · ") || "Nothing to do"}</span>
        </li>
      ))}
    </ul>
  );
}

/** The Automation Rules tab: the rules with their switch and count, the create/edit dialog and each rule's history. */
export function RulesTab() {
  const list = rulesApi.useRules();
  const [editing, setEditing] = useState<{ rule: Rule | null } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const { ask, dialog } = useConfirm();

  const toggle = async (r: Rule, on: boolean) => {
    try {
      await rulesApi.toggleRule(r.id, on);
      await list.reload();
    } catch (err) {
      toast({ title: "Error", description: errorMessage(err, "Could not switch the rule"), variant: "destructive" });
    }
  };
  const remove = async (r: Rule) => {
    const ok = await ask({ title: "Delete rule", message: `Delete "${r.name}" and its history?`, confirmLabel: "Delete", danger: true });
    if (!ok) return;
    try {
      await rulesApi.deleteRule(r.id);
      await list.reload();
    } catch (err) {
      toast({ title: "Error", description: errorMessage(err, "Could not delete the rule"), variant: "destructive" });
    }
  };

  return (
    <div className="space-y-4">
      <Button onClick={() => setEditing({ rule: null })}>Create Automation Rule</Button>
      {list.error && <Alert>{errorMessage(list.error, "Could not load the automation rules")}</Alert>}
      {list.loading && !list.data && <Spinner className="text-slate-400" />}
      {list.data && list.data.data.length === 0 && <Card className="p-8 text-center text-sm text-slate-600">No automation rules yet.</Card>}
      {list.data?.data.map((r) => (
        <Card key={r.id} className="p-4">
          <div data-testid="rule-card" className="space-y-2">
            <div className="flex flex-wrap items-start justify-between gap-2">
              <div>
                <h2 className="font-semibold text-slate-900">{r.name}</h2>
                <p className="text-sm text-slate-600">
                  {triggerLabel(r.trigger)} · <span data-testid="rule-count">fired {r.triggerCount} time{r.triggerCount === 1 ? "" : "s"}</span>
                </p>
              </div>
              <Switch on={r.isActive} label={`${r.name} active`} onChange={(on) => toggle(r, on)} />
            </div>
            <div className="flex flex-wrap gap-2">
              <Button variant="secondary" className="!px-3 !py-1 text-xs" onClick={() => setOpen(open === r.id ? null : r.id)}>
                {open === r.id ? "Hide history" : "History"}
              </Button>
              <Button variant="secondary" className="!px-3 !py-1 text-xs" onClick={() => setEditing({ rule: r })}>
                Edit
              </Button>
              <Button variant="secondary" className="!px-3 !py-1 text-xs" onClick={() => remove(r)}>
                Delete
              </Button>
            </div>
            {open === r.id && <Runs rule={r} />}
          </div>
        </Card>
      ))}
      {editing && (
        <RuleDialog
          rule={editing.rule}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            void list.reload();
          }}
        />
      )}
      {dialog}
    </div>
  );
}
