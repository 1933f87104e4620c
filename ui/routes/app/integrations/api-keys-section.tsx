import { useState } from "react";
import * as keysApi from "../../../api/api-keys";
import { API_BASE, API_DOCS_URL, API_SCOPES, type ApiKey, type ApiScope } from "../../../api/api-keys";
import { Badge } from "../../../components/badge";
import { Table } from "../../../components/table";
import { Alert, Button, Card, Field, Input, Modal, Spinner } from "../../../components/ui";
import { errorMessage } from "../../../lib/api";
import { accountTime } from "../../../lib/format";
import { toast } from "../../../lib/toast";
import { submitWith, useMutation } from "../../../lib/use-mutation";

// In the account's zone (Account Settings), like every other time in the app.
const when = (ms: number | null) => accountTime(ms);

/** Create API Key: name, the service it is for, its permissions and an optional expiry date. */
function ApiKeyDialog({ open, onClose, onCreated }: { open: boolean; onClose: () => void; onCreated: (key: string) => void }) {
  const [name, setName] = useState("");
  const [service, setService] = useState("");
  const [permissions, setPermissions] = useState<string[]>(["contacts:read", "contacts:write", "messages:send", "messages:read"]);
  const [expires, setExpires] = useState("");
  const create = useMutation(
    // The date picker's day, to its end in the user's own time zone.
    () => keysApi.createApiKey({ name, service, permissions: permissions as ApiScope[], expiresAt: expires ? new Date(`${expires}T23:59:59`).getTime() : null }),
    {
      onSuccess: (created) => {
        setName("");
        setService("");
        setExpires("");
        onCreated(created.key);
      },
      fallback: "Could not create the key",
    },
  );
  const toggle = (v: string) => setPermissions((list) => (list.includes(v) ? list.filter((x) => x !== v) : [...list, v]));
  return (
    <Modal open={open} onClose={onClose} title="Create API Key">
      <form onSubmit={submitWith(create.run)} className="space-y-3">
        <Field label="Name" htmlFor="key-name">
          <Input id="key-name" value={name} maxLength={100} required onChange={(e) => setName(e.target.value)} placeholder="Shop sync" />
        </Field>
        <Field label="Service (optional)" htmlFor="key-service">
          <Input id="key-service" value={service} maxLength={100} onChange={(e) => setService(e.target.value)} placeholder="Shopify, Zapier, n8n…" />
        </Field>
        <fieldset>
          <legend className="text-sm font-medium text-slate-700">Permissions</legend>
          <div className="mt-1 grid grid-cols-2 gap-1">
            {API_SCOPES.map((s) => (
              <label key={s.value} className="flex items-center gap-2 text-sm">
                <input type="checkbox" checked={permissions.includes(s.value)} onChange={() => toggle(s.value)} />
                {s.label}
              </label>
            ))}
          </div>
        </fieldset>
        <Field label="Expires (optional)" htmlFor="key-expires">
          <Input id="key-expires" type="date" value={expires} onChange={(e) => setExpires(e.target.value)} />
        </Field>
        {create.error && <Alert>{create.error}</Alert>}
        <div className="flex justify-end gap-2">
          <Button type="button" variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={create.busy || !permissions.length}>
            {create.busy && <Spinner />}
            Create Key
          </Button>
        </div>
      </form>
    </Modal>
  );
}

function statusBadge(k: ApiKey) {
  return <Badge tone={k.status === "active" ? "green" : k.status === "revoked" ? "red" : "slate"}>{k.status}</Badge>;
}

/** The account's API keys: created keys are shown in full once, then only masked; revoke and delete. */
export function ApiKeysSection() {
  const { data, reload } = keysApi.useApiKeys();
  const [creating, setCreating] = useState(false);
  const [fresh, setFresh] = useState<string | null>(null);
  const run = async (action: () => Promise<unknown>, done: string) => {
    try {
      await action();
      toast({ title: done });
      await reload();
    } catch (err) {
      toast({ title: "Error", description: errorMessage(err, "Try again"), variant: "destructive" });
    }
  };
  const copyFresh = async () => {
    try {
      await navigator.clipboard.writeText(fresh!);
      toast({ title: "API key copied" });
    } catch {
      toast({ title: "Could not copy", description: "Select the key and copy it by hand.", variant: "destructive" });
    }
  };
  return (
    <Card className="space-y-4 p-5">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <div>
          <h2 className="text-lg font-semibold">API Keys</h2>
          <p className="text-sm text-slate-600">
            Call the API under {API_BASE} with <code>Authorization: Bearer sk_live_…</code>. The reference is at{" "}
            <a className="text-blue-700 underline" href={API_DOCS_URL}>
              {API_DOCS_URL}
            </a>
            .
          </p>
        </div>
        <Button onClick={() => setCreating(true)}>Create API Key</Button>
      </div>
      {fresh && (
        <Alert tone="success">
          <p>Key created. Copy it now: it is shown only this once.</p>
          <p className="mt-1 break-all font-mono text-xs" data-testid="new-api-key">
            {fresh}
          </p>
          <div className="mt-2 flex gap-2">
            <Button variant="secondary" onClick={copyFresh}>
              Copy key
            </Button>
            <Button variant="secondary" onClick={() => setFresh(null)}>
              Done
            </Button>
          </div>
        </Alert>
      )}
      {!data ? (
        <Spinner />
      ) : data.length ? (
        <Table head={["Name", "Key", "Permissions", "Last used", "Expires", "Status", ""]} label="API keys">
          {data.map((k) => (
            <tr key={k.id} data-testid="api-key-row">
              <td className="px-3 py-2">
                <p className="font-medium">{k.name}</p>
                {k.service && <p className="text-xs text-slate-500">{k.service}</p>}
              </td>
              <td className="px-3 py-2 font-mono text-xs">{k.maskedKey}</td>
              <td className="px-3 py-2 text-xs">{k.permissions.join(", ")}</td>
              <td className="px-3 py-2 text-xs">{when(k.lastUsedAt)}</td>
              <td className="px-3 py-2 text-xs">{when(k.expiresAt)}</td>
              <td className="px-3 py-2">{statusBadge(k)}</td>
              <td className="px-3 py-2">
                <div className="flex gap-2">
                  {k.status === "active" && (
                    <Button variant="secondary" onClick={() => confirm(`Revoke the key "${k.name}"? Calls with it stop working at once.`) && run(() => keysApi.revokeApiKey(k.id), "Key revoked")}>
                      Revoke
                    </Button>
                  )}
                  <Button variant="secondary" onClick={() => confirm(`Delete the key "${k.name}"?`) && run(() => keysApi.deleteApiKey(k.id), "Key deleted")}>
                    Delete
                  </Button>
                </div>
              </td>
            </tr>
          ))}
        </Table>
      ) : (
        <p className="text-sm text-slate-600">No API keys yet.</p>
      )}
      <ApiKeyDialog
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(key) => {
          setCreating(false);
          setFresh(key);
          void reload();
        }}
      />
    </Card>
  );
}
