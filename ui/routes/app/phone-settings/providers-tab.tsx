import { useEffect, useState, type ReactNode } from "react";
import { Button, Card, Field, Input, Select, Spinner } from "../../../components/ui";
import { deleteProvider, simulateInbound, testProvider, updateProvider } from "../../../api/providers";
import { errorMessage } from "../../../lib/api";
import { toast } from "../../../lib/toast";
import { submitWith, useMutation } from "../../../lib/use-mutation";
import { Badge } from "../../../components/badge";
import { ConfirmDialog } from "../../../components/confirm-dialog";
import {
  formatSender,
  fromPercent,
  PROVIDER_NAMES,
  toPercent,
  type PhoneNumber,
  type Provider,
  type SimulatorSettings,
} from "./model";


const failed = (fallback: string) => (err: unknown) =>
  toast({ title: "Error", description: errorMessage(err, fallback), variant: "destructive" });

/** The account ceiling: at most this many segments per second across all of the account's numbers. */
function CeilingForm({ provider, onSaved }: { provider: Provider; onSaved: () => void }) {
  const [value, setValue] = useState(provider.messagesPerSecond?.toString() ?? "");
  useEffect(() => setValue(provider.messagesPerSecond?.toString() ?? ""), [provider.messagesPerSecond]);
  const dirty = value !== (provider.messagesPerSecond?.toString() ?? "");
  const saveLimit = useMutation((messagesPerSecond: number | null) => updateProvider(provider.id, { messagesPerSecond }), {
    onSuccess: onSaved,
    success: "Account limit saved",
    fallback: "Failed to save the limit",
    failureToast: "Error",
  });
  const save = () => {
    const parsed = value.trim() === "" ? null : Number(value);
    if (parsed !== null && !(parsed > 0)) {
      toast({
        title: "Error",
        description: "Messages per second must be a number above 0, or empty for no limit",
        variant: "destructive",
      });
      return;
    }
    return saveLimit.run(parsed);
  };
  const id = `ceiling-${provider.id}`;
  return (
    <form onSubmit={submitWith(save)} className="flex flex-wrap items-end gap-2">
      <div className="w-44">
        <Field label="Account limit (msg/s)" htmlFor={id}>
          <Input
            id={id}
            type="number"
            min="0.1"
            step="any"
            inputMode="decimal"
            placeholder="No limit"
            value={value}
            onChange={(e) => setValue(e.target.value)}
          />
        </Field>
      </div>
      <Button type="submit" variant="secondary" disabled={!dirty || saveLimit.busy}>
        {saveLimit.busy && <Spinner />}
        Save limit
      </Button>
      <p className="basis-full text-xs text-slate-500">
        Optional. Caps all of this account's numbers together; each number also keeps its own rate.
      </p>
    </form>
  );
}

type Knobs = { deliveryDelayMs: string; failRate: string; throttleRate: string; errorRate: string };
const knobsOf = (s: Partial<SimulatorSettings>): Knobs => ({
  deliveryDelayMs: s.deliveryDelayMs === undefined ? "" : String(s.deliveryDelayMs),
  failRate: toPercent(s.failRate),
  throttleRate: toPercent(s.throttleRate),
  errorRate: toPercent(s.errorRate),
});

const KNOBS: { key: keyof Knobs; label: string; hint: string; unit: string }[] = [
  { key: "deliveryDelayMs", label: "Delivery delay", hint: "How long until the delivery report arrives.", unit: "ms" },
  { key: "failRate", label: "Fail rate", hint: "Share of messages reported undelivered.", unit: "%" },
  { key: "throttleRate", label: "Throttle rate", hint: "Share of sends answered “too many requests” (retried).", unit: "%" },
  { key: "errorRate", label: "Error rate", hint: "Share of sends failing with a temporary server error (retried).", unit: "%" },
];

function SimulatorKnobs({ provider, onSaved }: { provider: Provider; onSaved: () => void }) {
  const [knobs, setKnobs] = useState<Knobs>(() => knobsOf(provider.settings));
  useEffect(() => setKnobs(knobsOf(provider.settings)), [provider.settings]);
  const save = useMutation(
    () => {
      const settings: SimulatorSettings = {
        deliveryDelayMs: Math.max(0, Math.round(Number(knobs.deliveryDelayMs) || 0)),
        failRate: fromPercent(knobs.failRate),
        throttleRate: fromPercent(knobs.throttleRate),
        errorRate: fromPercent(knobs.errorRate),
      };
      return updateProvider(provider.id, { settings });
    },
    { onSuccess: onSaved, success: "Simulator settings saved", fallback: "Failed to save the simulator settings", failureToast: "Error" },
  );
  return (
    <form onSubmit={submitWith(save.run)} className="space-y-3">
      <div className="grid gap-3 sm:grid-cols-2">
        {KNOBS.map((k) => {
          const id = `${k.key}-${provider.id}`;
          return (
            <Field key={k.key} label={`${k.label} (${k.unit})`} htmlFor={id} hint={k.hint}>
              <Input
                id={id}
                type="number"
                min="0"
                max={k.unit === "%" ? "100" : undefined}
                step={k.unit === "%" ? "0.1" : "100"}
                inputMode="decimal"
                placeholder="0"
                value={knobs[k.key]}
                onChange={(e) => setKnobs({ ...knobs, [k.key]: e.target.value })}
              />
            </Field>
          );
        })}
      </div>
      <div className="rounded-lg bg-slate-50 p-3 text-xs text-slate-600">
        <p className="font-medium text-slate-700">Test numbers (any US area code, e.g. +1 415 555-01XX)</p>
        <ul className="mt-1 list-disc space-y-0.5 pl-4">
          <li>555-0100 to 0149: delivered normally</li>
          <li>555-0150 to 0179: accepted, then reported failed (30003, unreachable handset)</li>
          <li>555-0180 to 0189: rejected at send (21211, invalid number)</li>
          <li>555-0190 to 0199: rejected at send as opted out (21610); the contact is opted out</li>
        </ul>
      </div>
      <Button type="submit" variant="secondary" disabled={save.busy}>
        {save.busy && <Spinner />}
        Save simulator settings
      </Button>
    </form>
  );
}

/** Makes the simulator deliver an incoming message, as if a contact had texted one of its numbers. */
function SimulateReply({ provider, numbers }: { provider: Provider; numbers: PhoneNumber[] }) {
  const own = numbers.filter((n) => n.providerId === provider.id);
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [body, setBody] = useState("");
  const simulate = useMutation(() => simulateInbound(provider.id, { from: from.trim(), to: to || undefined, body }), {
    onSuccess: () => setBody(""),
    success: (result) => ({ title: "Reply simulated", description: result.message }),
    fallback: "Failed to simulate the reply",
    failureToast: "Error",
  });
  const send = () => {
    if (!from.trim() || !body.trim()) {
      toast({ title: "Error", description: "Enter the sender's number and a message", variant: "destructive" });
      return;
    }
    return simulate.run();
  };
  return (
    <form onSubmit={submitWith(send)} className="space-y-3">
      <div className="grid gap-3 sm:grid-cols-2">
        <Field label="From" htmlFor={`sim-from-${provider.id}`}>
          <Input
            id={`sim-from-${provider.id}`}
            inputMode="tel"
            placeholder="+14155550199"
            value={from}
            onChange={(e) => setFrom(e.target.value)}
          />
        </Field>
        <Field label="To" htmlFor={`sim-to-${provider.id}`}>
          <Select id={`sim-to-${provider.id}`} value={to} onChange={(e) => setTo(e.target.value)}>
            <option value="">Simulator line 1</option>
            {own.map((n) => (
              <option key={n.id} value={n.phoneNumber}>
                {formatSender(n.phoneNumber)}
              </option>
            ))}
          </Select>
        </Field>
      </div>
      <Field label="Message" htmlFor={`sim-body-${provider.id}`} hint="Try STOP or START to see opt-outs handled.">
        <Input
          id={`sim-body-${provider.id}`}
          placeholder="Yes, see you Friday!"
          value={body}
          onChange={(e) => setBody(e.target.value)}
        />
      </Field>
      <Button type="submit" variant="secondary" disabled={simulate.busy}>
        {simulate.busy && <Spinner />}
        Simulate reply
      </Button>
    </form>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <details className="group rounded-lg border border-slate-200">
      <summary className="cursor-pointer select-none px-4 py-2 text-sm font-medium text-slate-700 hover:bg-slate-50">
        {title}
      </summary>
      <div className="border-t border-slate-200 p-4">{children}</div>
    </details>
  );
}

function ProviderCard({
  provider,
  numbers,
  onChanged,
  onTested,
}: {
  provider: Provider;
  numbers: PhoneNumber[];
  onChanged: () => void;
  onTested: (id: string, ok: boolean) => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const own = numbers.filter((n) => n.providerId === provider.id).length;
  const name = PROVIDER_NAMES[provider.provider];

  // A test that ran and failed answers success: false; one that could not run throws. Both say "Connection failed".
  const testing = useMutation(
    async () => {
      try {
        return await testProvider(provider.id);
      } catch (err) {
        onTested(provider.id, false);
        throw err;
      }
    },
    {
      onSuccess: (result) => onTested(provider.id, result.success),
      success: (result) =>
        result.success
          ? { title: "Connection successful!", description: result.message }
          : { title: "Connection failed", description: `Test failed: ${result.error ?? "Unknown error"}`, variant: "destructive" },
      fallback: "Unknown error",
      failureToast: (message) => ({ title: "Connection failed", description: `Test failed: ${message}`, variant: "destructive" }),
    },
  );

  const patch = useMutation((body: Partial<Pick<Provider, "isDefault" | "isActive">>, _done: string) => updateProvider(provider.id, body), {
    onSuccess: onChanged,
    success: (_updated, _body, done) => done,
    fallback: "Failed to update the provider",
    failureToast: "Error",
  });
  const busy = patch.busy;

  const remove = async () => {
    try {
      await deleteProvider(provider.id);
      toast({ title: "Provider deleted" });
      setConfirming(false);
      onChanged();
    } catch (err) {
      failed("Failed to delete the provider")(err);
    }
  };

  return (
    <section aria-labelledby={`provider-${provider.id}-name`}>
      <Card className="space-y-4 p-5">
        <div className="flex flex-wrap items-start justify-between gap-3">
          <div className="min-w-0">
            <p className="text-xs font-semibold uppercase tracking-wide text-slate-500">{name}</p>
            <h3 id={`provider-${provider.id}-name`} className="truncate text-lg font-semibold">
              {provider.displayName}
            </h3>
            {provider.credentialHint && <p className="text-sm text-slate-500">Credentials ending {provider.credentialHint}</p>}
          </div>
          <div className="flex flex-wrap gap-1.5">
            {provider.simulated && <Badge tone="amber">Simulated</Badge>}
            {provider.isDefault && <Badge tone="brand">Default</Badge>}
            <Badge tone={provider.isActive ? "green" : "slate"}>{provider.isActive ? "Active" : "Inactive"}</Badge>
          </div>
        </div>

        {provider.simulated && (
          <p className="rounded-lg bg-amber-50 px-3 py-2 text-sm text-amber-900">
            This is the built-in simulator: it sends no real messages. Sends are accepted and delivery reports come back as if
            from a real provider, so you can try everything safely.
          </p>
        )}

        <div className="flex flex-wrap gap-2">
          <Button variant="secondary" onClick={() => void testing.run()} disabled={testing.busy}>
            {testing.busy && <Spinner />}
            Test Connection
          </Button>
          {!provider.isDefault && (
            <Button
              variant="secondary"
              onClick={() => patch.run({ isDefault: true }, "Default provider updated")}
              disabled={busy || !provider.isActive}
            >
              Set as default
            </Button>
          )}
          <Button
            variant="ghost"
            onClick={() =>
              patch.run({ isActive: !provider.isActive }, provider.isActive ? "Provider deactivated" : "Provider activated")
            }
            disabled={busy}
          >
            {provider.isActive ? "Deactivate" : "Activate"}
          </Button>
          <Button
            variant="ghost"
            className="!text-red-700 hover:bg-red-50"
            onClick={() => setConfirming(true)}
            aria-label={`Delete ${provider.displayName}`}
          >
            Delete
          </Button>
        </div>

        <CeilingForm provider={provider} onSaved={onChanged} />

        {provider.simulated && (
          <div className="space-y-2">
            <Section title="Simulator behaviour">
              <SimulatorKnobs provider={provider} onSaved={onChanged} />
            </Section>
            <Section title="Simulate a reply">
              <SimulateReply provider={provider} numbers={numbers} />
            </Section>
          </div>
        )}

        {confirming && (
          <ConfirmDialog title="Delete provider" confirmLabel="Delete" onConfirm={remove} onClose={() => setConfirming(false)}>
            <p>
              Delete <strong>{provider.displayName}</strong>? Its stored credentials are erased
              {own > 0 ? ` and its ${own} phone number${own === 1 ? " is" : "s are"} removed too` : ""}. Messages already sent
              stay in your history.
            </p>
          </ConfirmDialog>
        )}
      </Card>
    </section>
  );
}

export function ProvidersTab({
  providers,
  numbers,
  onChanged,
  onTested,
}: {
  providers: Provider[];
  numbers: PhoneNumber[];
  onChanged: () => void;
  onTested: (id: string, ok: boolean) => void;
}) {
  return (
    <div className="grid gap-4 lg:grid-cols-2">
      {providers.map((p) => (
        <ProviderCard key={p.id} provider={p} numbers={numbers} onChanged={onChanged} onTested={onTested} />
      ))}
    </div>
  );
}
