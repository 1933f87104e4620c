import { Link } from "@tanstack/react-router";
import { useCallback, useState, type ReactNode } from "react";
import { TabPanel, Tabs } from "../../../components/tabs";
import { Alert, Button, Card, cx, Spinner } from "../../../components/ui";
import { usePhoneNumbers } from "../../../api/phone-numbers";
import { useProviderFields, useProviders } from "../../../api/providers";
import { NumberDialog } from "./number-dialog";
import { NumbersTab } from "./numbers-tab";
import { ProviderDialog } from "./provider-dialog";
import { ProvidersTab } from "./providers-tab";
import { RegistrationCard } from "./registration-card";

type Tab = "providers" | "numbers";
const TABS: { value: Tab; label: string }[] = [
  { value: "providers", label: "SMS Providers" },
  { value: "numbers", label: "Phone Numbers" },
];

function Empty({ title, text, action }: { title: string; text: string; action?: ReactNode }) {
  return (
    <Card className="p-10 text-center">
      <p className="font-medium">{title}</p>
      <p className="mx-auto mt-1 max-w-md text-sm text-slate-600">{text}</p>
      {action && <div className="mt-4 flex justify-center">{action}</div>}
    </Card>
  );
}

export function PhoneSettingsPage() {
  const [tab, setTab] = useState<Tab>("providers");
  const [providerOpen, setProviderOpen] = useState(false);
  const [numberOpen, setNumberOpen] = useState(false);
  const [failedTests, setFailedTests] = useState<Set<string>>(new Set());
  const [changes, setChanges] = useState(0);

  const providersQuery = useProviders();
  const numbersQuery = usePhoneNumbers();
  const fields = useProviderFields();

  const providers = providersQuery.data?.data ?? [];
  const numbers = numbersQuery.data?.data ?? [];
  const loading = providersQuery.loading || numbersQuery.loading;
  const activeProviders = providers.filter((p) => p.isActive);
  const failing = providers.filter((p) => failedTests.has(p.id));

  const refresh = useCallback(() => {
    void providersQuery.reload();
    void numbersQuery.reload();
    setChanges((n) => n + 1);
  }, [providersQuery, numbersQuery]);

  const onTested = useCallback((id: string, ok: boolean) => {
    setFailedTests((s) => {
      const next = new Set(s);
      if (ok) next.delete(id);
      else next.add(id);
      return next;
    });
  }, []);

  const addNumberBlocked =
    providers.length === 0
      ? "Add an SMS provider first: every number belongs to a provider account."
      : activeProviders.length === 0
        ? "Activate a provider first: numbers can only be added to an active provider."
        : "";

  const addProvider = <Button onClick={() => setProviderOpen(true)}>Add Provider</Button>;
  const addNumber = (
    <Button
      onClick={() => setNumberOpen(true)}
      disabled={!!addNumberBlocked}
      aria-describedby={addNumberBlocked ? "add-number-blocked" : undefined}
    >
      Add Phone Number
    </Button>
  );

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold">Phone Settings</h1>
          <p className="text-slate-600">The SMS provider accounts you send through and the numbers your messages come from.</p>
        </div>
        <Link
          to="/settings/webhook"
          className="rounded-lg border border-slate-300 bg-white px-4 py-2 text-sm font-medium text-slate-800 hover:bg-slate-50"
        >
          Set up two-way SMS webhooks
        </Link>
      </div>

      {!loading && !providersQuery.error && providers.length === 0 && (
        <Alert tone="info">
          <strong>No SMS provider yet.</strong> To send messages you need an account with Twilio, Telnyx, Brevo, TextMagic or
          ClickSend. To try everything first, add the built-in Simulator: it behaves like a provider but sends no real messages.
        </Alert>
      )}
      {failing.length > 0 && (
        <Alert>
          Connection test failed for {failing.map((p) => p.displayName).join(", ")}. Check the credentials at the provider, then
          delete the provider and add it again with the right ones. Messages through it will fail until then.
        </Alert>
      )}
      {providersQuery.error && <Alert>Could not load your providers: {providersQuery.error.message}</Alert>}
      {numbersQuery.error && <Alert>Could not load your phone numbers: {numbersQuery.error.message}</Alert>}
      {fields.error && <Alert>Could not load the provider credential fields: {fields.error.message}</Alert>}

      <Tabs
        tabs={TABS.map((t) => ({
          value: t.value,
          label: (
            <>
              {t.label}
              <span className="ml-1.5 rounded-full bg-slate-100 px-1.5 text-xs text-slate-600">
                {t.value === "providers" ? providers.length : numbers.length}
              </span>
            </>
          ),
        }))}
        value={tab}
        onChange={setTab}
        label="Phone settings sections"
        idPrefix="phone"
      />

      <TabPanel idPrefix="phone" value={tab} className="space-y-4">
        {tab === "providers" ? (
          <>
            <div className="flex flex-wrap items-center justify-between gap-3">
              <p className="text-sm text-slate-600">
                Each account's credentials are encrypted on this server. Test a connection after adding it.
              </p>
              {addProvider}
            </div>
            {loading ? (
              <Spinner className="text-slate-400" />
            ) : providers.length === 0 ? (
              <Empty
                title="No providers yet"
                text="Add the Simulator to try things out, or connect your provider account to send real messages."
                action={addProvider}
              />
            ) : (
              <ProvidersTab providers={providers} numbers={numbers} onChanged={refresh} onTested={onTested} />
            )}
          </>
        ) : (
          <>
            <div className="flex flex-wrap items-center justify-between gap-3">
              <p id="add-number-blocked" className={cx("text-sm", addNumberBlocked ? "text-amber-800" : "text-slate-600")}>
                {addNumberBlocked || "Numbers you send from. Each has its own sending rate; the carrier decides what it allows."}
              </p>
              {addNumber}
            </div>
            {loading ? (
              <Spinner className="text-slate-400" />
            ) : numbers.length === 0 ? (
              <Empty
                title="No phone numbers yet"
                text={
                  addNumberBlocked ||
                  "Add a number your provider account owns: fetch the list from the provider or type it in international format."
                }
                action={
                  addNumberBlocked ? (
                    <Button variant="secondary" onClick={() => setTab("providers")}>
                      Go to SMS Providers
                    </Button>
                  ) : (
                    addNumber
                  )
                }
              />
            ) : (
              <>
                <NumbersTab numbers={numbers} onChanged={refresh} />
                <RegistrationCard reloadKey={changes} />
              </>
            )}
          </>
        )}
      </TabPanel>

      <ProviderDialog
        open={providerOpen}
        fields={fields.data}
        hasDefault={providers.some((p) => p.isDefault)}
        onClose={() => setProviderOpen(false)}
        onAdded={refresh}
      />
      <NumberDialog
        open={numberOpen}
        providers={providers}
        existing={numbers}
        onClose={() => setNumberOpen(false)}
        onAdded={refresh}
      />
    </div>
  );
}
