import { useState } from "react";
import { removeStateRule, saveStateRule, useStateRules, type StateRuleLine } from "../../../api/state-rules";
import { Alert, Button, Card, Input } from "../../../components/ui";
import { useMutation } from "../../../lib/use-mutation";

type Form = { state: string; from: string; until: string; cap: string; source: string; checked: string };

const today = () => new Date().toISOString().slice(0, 10);
const EMPTY: Form = { state: "", from: "08:00", until: "20:00", cap: "", source: "", checked: today() };
const formOf = (r: StateRuleLine): Form => ({
  state: r.state,
  from: r.window?.from ?? "",
  until: r.window?.until ?? "",
  cap: r.capPer24h ? String(r.capPer24h) : "",
  source: r.source,
  checked: today(),
});

/**
 * The state rule table (issue 34 item 2): the lines in force, and a line an administrator sets for a state, which
 * replaces its built-in line (src/sending/state-rules.ts) or adds the state; removing it brings the built-in line
 * back. Empty hours and cap turn a state's rule off. The sending engine reads the table for each batch.
 */
export function StateRulesCard() {
  const rules = useStateRules();
  const [form, setForm] = useState<Form>(EMPTY);
  const field = (k: keyof Form) => ({
    value: form[k],
    onChange: (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value }),
  });
  const save = useMutation(
    () =>
      saveStateRule(form.state.trim(), {
        allowedFrom: form.from.trim() || null,
        allowedUntil: form.until.trim() || null,
        capPer24h: form.cap.trim() ? Number(form.cap) : null,
        source: form.source,
        checked: form.checked.trim(),
      }),
    { success: `Rule for ${form.state.toUpperCase()} saved`, onSuccess: () => rules.reload(), fallback: "Try again" },
  );
  const remove = useMutation((state: string) => removeStateRule(state), {
    success: (_r, state) => `Built-in rule for ${state} restored`,
    onSuccess: () => rules.reload(),
    fallback: "Try again",
  });
  return (
    <Card className="space-y-4 p-5">
      <div>
        <h2 className="font-medium">State rules for marketing texts</h2>
        <p className="text-sm text-slate-600">
          The hours and daily limits of states stricter than federal law, shown on /help and applied to every account's campaign
          messages. A line you set replaces the built-in one for its state; leave the hours and the limit empty to turn a state's
          rule off.
        </p>
      </div>
      {rules.error && <Alert>{rules.error.message}</Alert>}
      <ul className="divide-y divide-slate-100 rounded-lg border border-slate-200 text-sm">
        {(rules.data?.rules ?? []).map((r) => (
          <li key={r.state} className="flex flex-wrap items-center gap-x-3 gap-y-1 px-3 py-2">
            <span className="min-w-0 flex-1">
              <span className="font-medium">{r.name}</span>: {r.hours ?? "no hours rule"},{" "}
              {r.capPer24h ? `${r.capPer24h} per 24 hours` : "no limit"} · {r.source} · checked {r.checked}
              {r.origin !== "built-in" && <span className="text-slate-500"> (yours)</span>}
            </span>
            <Button variant="secondary" onClick={() => setForm(formOf(r))}>
              Edit
            </Button>
            {r.origin !== "built-in" && (
              <Button variant="secondary" onClick={() => remove.run(r.state)} disabled={remove.busy}>
                {r.origin === "changed" ? "Restore built-in" : "Remove"}
              </Button>
            )}
          </li>
        ))}
      </ul>
      <form
        className="grid gap-3 sm:grid-cols-3"
        onSubmit={(e) => {
          e.preventDefault();
          void save.run();
        }}
      >
        <label className="text-sm">
          State (two letters)
          <Input {...field("state")} maxLength={2} placeholder="FL" required />
        </label>
        <label className="text-sm">
          Texts allowed from
          <Input {...field("from")} placeholder="08:00" />
        </label>
        <label className="text-sm">
          Until
          <Input {...field("until")} placeholder="20:00" />
        </label>
        <label className="text-sm">
          At most per 24 hours
          <Input {...field("cap")} type="number" min={1} max={100} placeholder="No limit" />
        </label>
        <label className="text-sm">
          Legal source
          <Input {...field("source")} placeholder="Fla. Stat. § 501.616(6)" required />
        </label>
        <label className="text-sm">
          Checked on
          <Input {...field("checked")} placeholder="YYYY-MM-DD" required />
        </label>
        {(save.error || remove.error) && (
          <div className="sm:col-span-3">
            <Alert>{save.error ?? remove.error}</Alert>
          </div>
        )}
        <div className="sm:col-span-3">
          <Button type="submit" disabled={save.busy}>
            Save state rule
          </Button>
        </div>
      </form>
    </Card>
  );
}
