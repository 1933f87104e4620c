import { useEffect, useState } from "react";
import { setWebhookAllowList, useWebhookAllowList } from "../../../api/admin";
import { Alert, Button, Card } from "../../../components/ui";
import { useMutation } from "../../../lib/use-mutation";
import { StateRulesCard } from "./state-rules-card";

/**
 * Installation-wide settings: the networks and host names users' webhooks may call although they are not public
 * (an n8n on the LAN). The server refuses loopback, link-local and metadata entries with the reason, shown here.
 */
export function SettingsTab() {
  const { data, error, reload } = useWebhookAllowList();
  const [text, setText] = useState("");
  const save = useMutation(
    () =>
      setWebhookAllowList(
        text
          .split(/[\n,]/)
          .map((e) => e.trim())
          .filter(Boolean),
      ),
    {
      success: (saved) =>
        saved.entries.length ? `Webhook allow-list saved (${saved.entries.length} entries)` : "Webhook allow-list emptied",
      onSuccess: () => reload(),
      fallback: "Try again",
    },
  );
  useEffect(() => {
    if (data) setText(data.entries.join("\n"));
  }, [data]);
  if (error) return <Alert>{error.message}</Alert>;
  if (!data) return <p className="text-slate-500">Loading settings...</p>;
  return (
    <div className="space-y-6">
      <Card className="space-y-3 p-5">
        <div>
          <label htmlFor="webhook-allow-list" className="font-medium">
            Webhook allow-list
          </label>
          <p id="webhook-allow-list-help" className="text-sm text-slate-600">
            Users' webhooks call public addresses only. List here, one per line, the private networks (CIDRs such as 10.0.0.0/8 or
            fd12:3456::/48) and host names (n8n.lan, *.corp.example) they may call too, for example an n8n on the same network.
            Loopback, link-local and cloud metadata addresses can never be allowed, and the answers of these receivers are not
            shown to users.
          </p>
        </div>
        <textarea
          id="webhook-allow-list"
          aria-describedby="webhook-allow-list-help"
          className="block min-h-28 w-full rounded-lg border border-slate-300 px-3 py-2 font-mono text-sm"
          value={text}
          placeholder={"192.168.1.0/24\nn8n.lan"}
          onChange={(e) => setText(e.target.value)}
        />
        {save.error && <Alert>{save.error}</Alert>}
        <Button onClick={() => save.run()} disabled={save.busy}>
          Save allow-list
        </Button>
      </Card>
      <StateRulesCard />
    </div>
  );
}
