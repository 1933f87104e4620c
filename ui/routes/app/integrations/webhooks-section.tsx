import { useState } from "react";
import * as webhooksApi from "../../../api/webhooks";
import { WEBHOOK_EVENTS, type Webhook, type WebhookEvent } from "../../../api/webhooks";
import { Badge } from "../../../components/badge";
import { Pagination } from "../../../components/pagination";
import { Table } from "../../../components/table";
import { Alert, Button, Card, Field, Input, Modal, Spinner } from "../../../components/ui";
import { errorMessage } from "../../../lib/api";
import { accountTime } from "../../../lib/format";
import { toast } from "../../../lib/toast";
import { submitWith, useMutation } from "../../../lib/use-mutation";

async function copy(text: string, what: string) {
  try {
    await navigator.clipboard.writeText(text);
    toast({ title: `${what} copied` });
  } catch {
    toast({ title: "Could not copy", description: text, variant: "destructive" });
  }
}

/**
 * Add Webhook (name, URL, events, an optional secret: one is generated otherwise), or Edit Webhook for an existing
 * one (name, URL, events; its secret changes by rotation).
 */
function WebhookDialog({
  open,
  onClose,
  editing,
  onSaved,
}: {
  open: boolean;
  onClose: () => void;
  editing?: Webhook;
  onSaved: (secret: string | null) => void;
}) {
  const [name, setName] = useState(editing?.name ?? "");
  const [url, setUrl] = useState(editing?.url ?? "");
  const [events, setEvents] = useState<WebhookEvent[]>(editing?.events ?? ["message_delivered", "message_replied"]);
  const [secret, setSecret] = useState("");
  const title = editing ? "Edit Webhook" : "Add Webhook";
  const save = useMutation(
    async () => {
      if (editing) {
        await webhooksApi.updateWebhook(editing.id, { name, url, events });
        return null;
      }
      const created = await webhooksApi.createWebhook({ name, url, events, ...(secret.trim() ? { secret: secret.trim() } : {}) });
      setName("");
      setUrl("");
      setSecret("");
      return created.secret;
    },
    { onSuccess: onSaved, fallback: editing ? "Could not save the webhook" : "Could not add the webhook" },
  );
  const toggle = (v: WebhookEvent) => setEvents((list) => (list.includes(v) ? list.filter((x) => x !== v) : [...list, v]));
  const id = editing ? `wh-${editing.id}` : "wh";
  return (
    <Modal open={open} onClose={onClose} title={title}>
      <form onSubmit={submitWith(save.run)} className="space-y-3">
        <Field label="Name" htmlFor={`${id}-name`}>
          <Input id={`${id}-name`} value={name} maxLength={100} required onChange={(e) => setName(e.target.value)} placeholder="n8n orders flow" />
        </Field>
        <Field label="URL" htmlFor={`${id}-url`} hint="Called with a POST for each event. Private networks need an administrator's allow-list.">
          <Input id={`${id}-url`} type="url" value={url} maxLength={2000} required onChange={(e) => setUrl(e.target.value)} placeholder="https://hooks.example.com/sms" />
        </Field>
        <fieldset>
          <legend className="text-sm font-medium text-slate-700">Events</legend>
          <div className="mt-1 grid grid-cols-2 gap-1">
            {WEBHOOK_EVENTS.map((e) => (
              <label key={e.value} className="flex items-center gap-2 text-sm">
                <input type="checkbox" checked={events.includes(e.value)} onChange={() => toggle(e.value)} />
                {e.label}
              </label>
            ))}
          </div>
        </fieldset>
        {!editing && (
          <Field label="Secret (optional)" htmlFor={`${id}-secret`} hint="whsec_… — leave empty to generate one.">
            <Input id={`${id}-secret`} value={secret} maxLength={100} onChange={(e) => setSecret(e.target.value)} />
          </Field>
        )}
        {save.error && <Alert>{save.error}</Alert>}
        <div className="flex justify-end gap-2">
          <Button type="button" variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={save.busy || !events.length}>
            {save.busy && <Spinner />}
            {editing ? "Save" : "Add Webhook"}
          </Button>
        </div>
      </form>
    </Modal>
  );
}

/** The delivery log of one webhook: what was sent, the answer, and a way to send it again. */
function DeliveryLog({ webhook }: { webhook: Webhook }) {
  const [page, setPage] = useState(1);
  const { data, reload } = webhooksApi.useDeliveries(webhook.id, page);
  const again = async (deliveryId: string) => {
    try {
      await webhooksApi.redeliver(webhook.id, deliveryId);
      toast({ title: "Delivery queued again" });
      await reload();
    } catch (err) {
      toast({ title: "Could not redeliver", description: errorMessage(err, "Try again"), variant: "destructive" });
    }
  };
  if (!data) return <Spinner />;
  if (!data.deliveries.length) return <p className="text-sm text-slate-600">No deliveries yet. Send a test event to try the endpoint.</p>;
  return (
    <div className="space-y-2">
      <Table head={["Event", "Status", "Answer", "Attempts", "Latency", "Last attempt", ""]} label={`Deliveries of ${webhook.name}`}>
        {data.deliveries.map((d) => (
          <tr key={d.id} data-testid="delivery-row">
            <td className="px-3 py-2 font-mono text-xs">{d.eventType}</td>
            <td className="px-3 py-2">
              <Badge tone={d.status === "succeeded" ? "green" : d.status === "failed" ? "red" : "slate"}>{d.status}</Badge>
            </td>
            <td className="max-w-64 truncate px-3 py-2 text-xs" title={d.responseHidden ? HIDDEN : d.responseBody ?? d.error ?? ""}>
              {d.responseStatus ?? "—"} {d.error ?? (d.responseHidden ? HIDDEN : d.responseBody ?? "")}
            </td>
            <td className="px-3 py-2">{d.attempts}</td>
            <td className="px-3 py-2">{d.latencyMs === null ? "—" : `${d.latencyMs} ms`}</td>
            <td className="px-3 py-2 text-xs">{accountTime(d.lastAttemptAt)}</td>
            <td className="px-3 py-2">
              {d.status !== "pending" && (
                <Button variant="secondary" onClick={() => again(d.id)}>
                  Redeliver
                </Button>
              )}
            </td>
          </tr>
        ))}
      </Table>
      <Pagination page={page} pageSize={data.pageSize} total={data.total} onPage={setPage} />
    </div>
  );
}

function WebhookRow({ webhook, onChanged }: { webhook: Webhook; onChanged: () => void }) {
  const [open, setOpen] = useState(false);
  const [editing, setEditing] = useState(false);
  const run = async (action: () => Promise<unknown>, done: string) => {
    try {
      await action();
      toast({ title: done });
      onChanged();
    } catch (err) {
      toast({ title: "Error", description: errorMessage(err, "Try again"), variant: "destructive" });
    }
  };
  return (
    <section aria-label={`Webhook ${webhook.name}`} className="space-y-3 rounded-xl border border-slate-200 bg-white p-4">
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0">
          <p className="font-semibold">
            {webhook.name} {!webhook.active && <Badge tone="red">Disabled</Badge>}
          </p>
          <p className="truncate font-mono text-xs text-slate-600">{webhook.url}</p>
          <p className="text-xs text-slate-500">{webhook.events.join(", ")}</p>
          {webhook.disabledReason && <p className="text-xs text-red-700">Disabled: {webhook.disabledReason}</p>}
        </div>
        <div className="flex flex-wrap gap-2">
          <Button variant="secondary" onClick={() => run(() => webhooksApi.sendTestEvent(webhook.id), "Test event queued")}>
            Send test event
          </Button>
          <Button variant="secondary" onClick={() => setOpen(!open)} aria-expanded={open}>
            Delivery log
          </Button>
          <Button variant="secondary" onClick={() => setEditing(true)}>
            Edit
          </Button>
          <Button variant="secondary" onClick={() => run(() => webhooksApi.updateWebhook(webhook.id, { active: !webhook.active }), webhook.active ? "Webhook disabled" : "Webhook enabled")}>
            {webhook.active ? "Disable" : "Enable"}
          </Button>
          <Button
            variant="secondary"
            onClick={() =>
              run(async () => {
                const { secret } = await webhooksApi.rotateWebhookSecret(webhook.id);
                await copy(secret, "New secret (the old one keeps signing for 24 hours)");
              }, "Secret rotated")
            }
          >
            Rotate secret
          </Button>
          <Button variant="secondary" onClick={() => confirm(`Delete the webhook "${webhook.name}"?`) && run(() => webhooksApi.deleteWebhook(webhook.id), "Webhook deleted")}>
            Delete
          </Button>
        </div>
      </div>
      {open && <DeliveryLog webhook={webhook} />}
      {editing && (
        <WebhookDialog
          open
          editing={webhook}
          onClose={() => setEditing(false)}
          onSaved={() => {
            setEditing(false);
            toast({ title: "Webhook saved" });
            onChanged();
          }}
        />
      )}
    </section>
  );
}

/** A receiver on a private network the administrator allowed: its answer may be an internal service's. */
const HIDDEN = "(answer not shown: private network)";

export function WebhooksSection() {
  const { data, reload } = webhooksApi.useWebhooks();
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  return (
    <Card className="space-y-4 p-5">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <div>
          <h2 className="text-lg font-semibold">Webhooks</h2>
          <p className="text-sm text-slate-600">
            Events are POSTed to your URL, signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature), and retried for about a day.
          </p>
        </div>
        <Button onClick={() => setAdding(true)}>Add Webhook</Button>
      </div>
      {secret && (
        <Alert tone="success">
          <p>Webhook added. Its signing secret (shown once):</p>
          <p className="mt-1 break-all font-mono text-xs" data-testid="webhook-secret">
            {secret}
          </p>
          <Button variant="secondary" onClick={() => copy(secret, "Secret")}>
            Copy secret
          </Button>
        </Alert>
      )}
      {!data ? (
        <Spinner />
      ) : data.data.length ? (
        data.data.map((w) => <WebhookRow key={w.id} webhook={w} onChanged={reload} />)
      ) : (
        <p className="text-sm text-slate-600">No webhooks yet.</p>
      )}
      <WebhookDialog
        open={adding}
        onClose={() => setAdding(false)}
        onSaved={(s) => {
          setAdding(false);
          setSecret(s);
          void reload();
        }}
      />
    </Card>
  );
}
