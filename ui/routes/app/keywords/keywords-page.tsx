import { useSignals } from "@preact/signals-react/runtime";
import { useNavigate } from "@tanstack/react-router";
import { useState } from "react";
import * as keywordsApi from "../../../api/keywords";
import type { Keyword, KeywordInput, KeywordTestResult } from "../../../api/keywords";
import { usePhoneNumbers } from "../../../api/phone-numbers";
import { Badge } from "../../../components/badge";
import { Button, Card, Field, Input, Select, Spinner } from "../../../components/ui";
import { ApiError, errorMessage } from "../../../lib/api";
import { auth } from "../../../lib/auth";
import { toast } from "../../../lib/toast";
import { submitWith, useMutation } from "../../../lib/use-mutation";
import { KeywordModal } from "./keyword-modal";
import { KEYWORD_RULES } from "./rules";

const percent = (n: number | null) => (n === null ? "—" : `${n}%`);

/** The name the server signs replies with (src/users/queries.ts businessNameOf). */
function businessName() {
  const u = auth.value.user;
  return u?.business.name?.trim() || `${u?.firstName ?? ""} ${u?.lastName ?? ""}`.trim() || "Your Business";
}

function Stat({ label, value }: { label: string; value: string }) {
  return (
    <Card className="p-5">
      <p className="text-sm text-slate-600">{label}</p>
      <p className="mt-1 text-2xl font-bold" data-testid={`stat-${label}`}>
        {value}
      </p>
    </Card>
  );
}

/** The spec's active switch. */
function Switch({ on, label, disabled, onChange }: { on: boolean; label: string; disabled: boolean; onChange: (on: boolean) => void }) {
  return (
    <button
      type="button"
      role="switch"
      aria-checked={on}
      aria-label={label}
      disabled={disabled}
      onClick={() => onChange(!on)}
      className={`relative inline-flex h-6 w-11 shrink-0 items-center rounded-full transition-colors disabled:opacity-50 ${on ? "bg-brand-600" : "bg-slate-300"}`}
    >
      <span className={`inline-block h-5 w-5 transform rounded-full bg-white shadow transition-transform ${on ? "translate-x-5" : "translate-x-0.5"}`} />
    </button>
  );
}

/** "What happens if someone texts X to this number?", answered by the server's matcher without sending. */
function Tester({ numbers }: { numbers: string[] }) {
  const [number, setNumber] = useState("");
  const [text, setText] = useState("");
  const [result, setResult] = useState<KeywordTestResult | null>(null);
  const test = useMutation(() => keywordsApi.testKeyword(number, text), {
    onSuccess: setResult,
    fallback: "Failed to test the message",
    failureToast: "Error",
  });
  const { busy } = test;
  const run = () => text.trim() && test.run();
  return (
    <Card className="p-5">
      <h2 className="text-lg font-semibold">Test a message</h2>
      <p className="text-sm text-slate-600">What happens if someone texts this to your number? Nothing is sent.</p>
      <form onSubmit={submitWith(run)} className="mt-3 flex flex-wrap items-end gap-2">
        <Field label="To" htmlFor="kw-test-number">
          <Select id="kw-test-number" value={number} onChange={(e) => setNumber(e.target.value)}>
            <option value="">Any of my numbers</option>
            {numbers.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </Select>
        </Field>
        <div className="min-w-48 flex-1">
          <Field label="Test message" htmlFor="kw-test-text">
            <Input id="kw-test-text" value={text} maxLength={1600} placeholder="Join!" onChange={(e) => setText(e.target.value)} />
          </Field>
        </div>
        <Button type="submit" variant="secondary" disabled={busy || !text.trim()}>
          {busy && <Spinner />}
          Test
        </Button>
      </form>
      {result && (
        <div className="mt-3 rounded-lg bg-slate-50 p-3 text-sm" data-testid="keyword-test-result" aria-live="polite">
          <p className="font-medium">{result.description}</p>
          {result.reply && <p className="mt-1 text-slate-600">Reply: “{result.reply}”</p>}
        </div>
      )}
    </Card>
  );
}

function KeywordCard({ k, numbers, onToggle, onEdit }: { k: Keyword; numbers: string[]; onToggle: (on: boolean) => Promise<void>; onEdit: () => void }) {
  // Each card its own: switching one keyword leaves the others' switches as they are.
  const toggle = useMutation(onToggle, { failureToast: "Error" });
  const where = k.shortCode || k.numbers[0] || numbers[0] || "";
  const copy = async () => {
    const instructions = `Text ${k.keyword}${where ? ` to ${where}` : ""} to join. Msg & data rates may apply. Reply STOP to cancel.`;
    try {
      await navigator.clipboard.writeText(instructions);
      toast({ title: "Instructions copied", description: instructions });
    } catch {
      toast({ title: "Could not copy", description: instructions, variant: "destructive" });
    }
  };
  return (
    <section data-testid="keyword-card" aria-label={`Keyword ${k.keyword}`} className="space-y-3 rounded-xl border border-slate-200 bg-white p-5 shadow-sm">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0 flex-1">
          <div className="flex flex-wrap items-center gap-2">
            <p className="text-lg font-bold">{k.keyword}</p>
            <Badge tone={k.isActive ? "green" : "slate"}>{k.isActive ? "Active" : "Off"}</Badge>
            {k.matchMode === "first_word" && <Badge tone="blue">First word</Badge>}
            {k.doubleOptIn && <Badge tone="brand">Double opt-in</Badge>}
          </div>
          <p className="mt-1 text-xs text-slate-500">{k.numbers.length ? `On ${k.numbers.join(", ")}` : "On all your numbers"}</p>
          <p className="mt-2 text-sm text-slate-700">“{k.autoReply}”</p>
          {k.tags.length > 0 && (
            <p className="mt-2 flex flex-wrap gap-1">
              {k.tags.map((t) => (
                <Badge key={t} tone="slate">
                  {t}
                </Badge>
              ))}
            </p>
          )}
        </div>
        <Switch on={k.isActive} label={`Active ${k.keyword}`} disabled={toggle.busy} onChange={(on) => void toggle.run(on)} />
      </div>
      <div className="flex flex-wrap items-center justify-between gap-3 border-t border-slate-100 pt-3 text-sm">
        <p className="text-slate-600">
          <strong className="text-slate-900" data-testid="keyword-opt-ins">
            {k.optInCount}
          </strong>{" "}
          opt-in{k.optInCount === 1 ? "" : "s"}
          {k.pendingCount > 0 && ` (${k.pendingCount} awaiting Y)`} · response rate <strong className="text-slate-900">{percent(k.responseRate)}</strong>
        </p>
        <div className="flex gap-2">
          <Button variant="secondary" onClick={copy} aria-label={`Copy instructions for ${k.keyword}`}>
            Copy instructions
          </Button>
          <Button variant="secondary" onClick={onEdit} aria-label={`Edit ${k.keyword}`}>
            Edit
          </Button>
        </div>
      </div>
    </section>
  );
}

export function KeywordsPage() {
  useSignals();
  const navigate = useNavigate();
  const list = keywordsApi.useKeywords();
  const phoneNumbers = usePhoneNumbers();
  const [editing, setEditing] = useState<Keyword | "new" | null>(null);
  const numbers = (phoneNumbers.data?.data ?? []).map((n) => n.phoneNumber);
  const business = businessName();

  /** The spec's handling of a signed-out call: say so, then go to sign-in after half a second. */
  const failed = (err: unknown, fallback: string) => {
    if (err instanceof ApiError && err.code === "unauthorized") {
      toast({ title: "You are logged out. Logging in again...", variant: "destructive" });
      setTimeout(() => void navigate({ to: "/auth" }), 500);
      return fallback;
    }
    return errorMessage(err, fallback);
  };

  const save = async (input: KeywordInput) => {
    const existing = editing !== "new" ? editing : null;
    try {
      if (existing) await keywordsApi.updateKeyword(existing.id, input);
      else await keywordsApi.createKeyword(input);
      toast({ title: existing ? "Keyword updated" : "Keyword created", description: `${input.keyword.toUpperCase()} is ready.` });
      setEditing(null);
      void list.reload();
      return null;
    } catch (err) {
      return failed(err, existing ? "Failed to update keyword" : "Failed to create keyword");
    }
  };

  /** Turns a keyword on or off and reads the list again; a failure is toasted by the card, in the spec's words. */
  const toggle = async (k: Keyword, on: boolean) => {
    try {
      await keywordsApi.toggleKeyword(k.id, on);
    } catch (err) {
      throw new Error(failed(err, "Failed to toggle keyword"));
    }
    await list.reload();
  };

  const totals = list.data?.totals;
  const keywords = list.data?.data ?? [];
  return (
    <div className="space-y-8">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold">Keywords</h1>
          <p className="text-slate-600">Text-to-join: people text a word to your number and join your list, tagged and with their consent recorded.</p>
        </div>
        <Button onClick={() => setEditing("new")}>Create Keyword</Button>
      </div>

      <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <Stat label="Total Keywords" value={String(totals?.keywords ?? 0)} />
        <Stat label="Active" value={String(totals?.active ?? 0)} />
        <Stat label="Total Opt-ins" value={String(totals?.optIns ?? 0)} />
        <Stat label="Avg. Response Rate" value={percent(totals?.responseRate ?? null)} />
      </div>

      <section className="space-y-3">
        {list.error && <p className="text-sm text-red-600">Could not load keywords: {list.error.message}</p>}
        {list.loading && <Spinner className="text-slate-400" />}
        {!list.loading && !list.error && keywords.length === 0 && (
          <Card className="p-8 text-center">
            <p className="font-medium">No keywords yet</p>
            <p className="mt-1 text-sm text-slate-600">Create one, such as JOIN, and put “Text JOIN to {numbers[0] ?? "your number"}” on your counter.</p>
          </Card>
        )}
        {keywords.map((k) => (
          <KeywordCard key={k.id} k={k} numbers={numbers} onToggle={(on) => toggle(k, on)} onEdit={() => setEditing(k)} />
        ))}
      </section>

      <Tester numbers={numbers} />

      <Card className="p-5">
        <h2 className="text-lg font-semibold">How keywords match</h2>
        <ul className="mt-2 list-disc space-y-1 pl-5 text-sm text-slate-700">
          {KEYWORD_RULES.map((r) => (
            <li key={r}>{r}</li>
          ))}
        </ul>
        <p className="mt-2 text-xs text-slate-500">
          Replies may use merge fields such as {"{firstName|there}"} and {"{business}"}, filled for each subscriber.
        </p>
      </Card>

      {editing && (
        <KeywordModal
          key={editing === "new" ? "new" : editing.id}
          open
          keyword={editing === "new" ? null : editing}
          numbers={phoneNumbers.data?.data ?? []}
          business={business}
          onClose={() => setEditing(null)}
          onSave={save}
        />
      )}
    </div>
  );
}
