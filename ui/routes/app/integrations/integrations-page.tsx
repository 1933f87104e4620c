import { useState } from "react";
import { TabPanel, Tabs } from "../../../components/tabs";
import { Button } from "../../../components/ui";
import { toast } from "../../../lib/toast";
import { ApiKeysSection } from "./api-keys-section";
import { CARDS, CATEGORIES, type Category, type IntegrationCard } from "./cards";
import { WebhooksSection } from "./webhooks-section";

function Example({ card }: { card: IntegrationCard }) {
  const text = card.example(window.location.origin);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      toast({ title: "Example copied" });
    } catch {
      toast({ title: "Could not copy", description: text, variant: "destructive" });
    }
  };
  return (
    <div className="relative">
      {/* Focusable: a long line scrolls sideways, and a keyboard must reach it. */}
      <pre
        tabIndex={0}
        aria-label={`${card.name} example`}
        className="overflow-x-auto rounded-lg bg-slate-900 p-3 text-xs text-slate-100 focus-visible:outline focus-visible:outline-2 focus-visible:outline-sky-400"
      >
        {text}
      </pre>
      <Button variant="secondary" className="absolute right-2 top-2 px-2 py-1 text-xs" onClick={copy} aria-label={`Copy the ${card.name} example`}>
        Copy
      </Button>
    </div>
  );
}

/** How to connect a tool; never a "connected" state, since nothing here talks to the tool itself. */
function Integration({ card }: { card: IntegrationCard }) {
  return (
    <section aria-label={card.name} data-testid="integration-card" className="space-y-3 rounded-xl border border-slate-200 bg-white p-5 shadow-sm">
      <div>
        <h3 className="text-base font-semibold">{card.name}</h3>
        <p className="text-sm text-slate-600">{card.summary}</p>
      </div>
      <ol className="list-decimal space-y-1 pl-5 text-sm text-slate-700">
        {card.steps.map((s) => (
          <li key={s}>{s}</li>
        ))}
      </ol>
      <Example card={card} />
    </section>
  );
}

export function IntegrationsPage() {
  const [category, setCategory] = useState<Category>("all");
  const cards = category === "all" ? CARDS : CARDS.filter((c) => c.category === category);
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-bold">Integrations</h1>
        <p className="text-slate-600">Connect your shop, CRM and automation tools through API keys and signed webhooks.</p>
      </div>
      <Tabs tabs={CATEGORIES} value={category} onChange={setCategory} label="Integration categories" idPrefix="integrations" />
      <TabPanel idPrefix="integrations" value={category} className="grid grid-cols-1 gap-4 md:grid-cols-2">
        {cards.map((c) => (
          <Integration key={c.name} card={c} />
        ))}
      </TabPanel>
      <ApiKeysSection />
      <WebhooksSection />
    </div>
  );
}
