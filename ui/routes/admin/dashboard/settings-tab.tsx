import { useState } from "react";
import { setPrivateNetworks, usePrivateNetworks } from "../../../api/admin";
import { Alert, Card } from "../../../components/ui";
import { errorMessage } from "../../../lib/api";
import { toast } from "../../../lib/toast";

/** Installation-wide settings: whether users' webhooks may reach private networks (n8n on the same network). */
export function SettingsTab() {
  const { data, error, reload } = usePrivateNetworks();
  const [busy, setBusy] = useState(false);
  if (error) return <Alert>{error.message}</Alert>;
  if (!data) return <p className="text-slate-500">Loading settings...</p>;
  const change = async (allow: boolean) => {
    setBusy(true);
    try {
      await setPrivateNetworks(allow);
      toast({ title: allow ? "Private networks allowed" : "Private networks refused" });
      await reload();
    } catch (err) {
      toast({ title: "Error", description: errorMessage(err, "Try again"), variant: "destructive" });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Card className="space-y-2 p-5">
      <label className="flex items-start gap-3">
        <input type="checkbox" className="mt-1" checked={data.allowPrivateNetworks} disabled={busy} onChange={(e) => change(e.target.checked)} />
        <span>
          <span className="font-medium">Allow webhooks to private networks</span>
          <span className="block text-sm text-slate-600">
            Lets users' webhooks call loopback, private and link-local addresses (10.x, 172.16–31.x, 192.168.x, localhost), for example an n8n on the
            same network. Leave it off when users you do not fully trust share this installation: a webhook could then reach internal services.
          </span>
        </span>
      </label>
    </Card>
  );
}
