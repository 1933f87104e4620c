import { useState } from "react";
import { updatePlan, useAdminPlans, type AdminPlan } from "../../../api/admin";
import { Button, Card, Field, Input } from "../../../components/ui";
import { submitWith, useMutation } from "../../../lib/use-mutation";

function PlanEditor({ plan, onSaved }: { plan: AdminPlan; onSaved: () => void }) {
  const [form, setForm] = useState({
    price: String(plan.price / 100),
    monthlyContacts: String(plan.monthlyContacts),
    monthlyMessages: String(plan.monthlyMessages),
    phoneNumbers: String(plan.phoneNumbers),
    features: plan.features.join(", "),
  });
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });
  const save = useMutation(
    () =>
      updatePlan(plan.id, {
        price: Math.round(Number(form.price) * 100),
        monthlyContacts: Number(form.monthlyContacts),
        monthlyMessages: Number(form.monthlyMessages),
        phoneNumbers: Number(form.phoneNumbers),
        features: form.features
          .split(",")
          .map((f) => f.trim())
          .filter(Boolean),
      }),
    { success: { title: "Plan saved", description: `${plan.name} updated.` }, onSuccess: onSaved, fallback: "Failed to save the plan", failureToast: "Error" },
  );
  const id = (k: string) => `plan-${plan.id}-${k}`;
  return (
    <Card className="p-4">
      <form className="space-y-3" onSubmit={submitWith(save.run)}>
        <h3 className="font-semibold">{plan.name}</h3>
        <div className="grid gap-3 md:grid-cols-4">
          <Field label="Price ($/month)" htmlFor={id("price")}>
            <Input id={id("price")} type="number" min={0} step="0.01" value={form.price} onChange={set("price")} />
          </Field>
          <Field label="Contacts (-1 unlimited)" htmlFor={id("contacts")}>
            <Input id={id("contacts")} type="number" min={-1} value={form.monthlyContacts} onChange={set("monthlyContacts")} />
          </Field>
          <Field label="Messages/month (-1 unlimited)" htmlFor={id("messages")}>
            <Input id={id("messages")} type="number" min={-1} value={form.monthlyMessages} onChange={set("monthlyMessages")} />
          </Field>
          <Field label="Phone numbers" htmlFor={id("numbers")}>
            <Input id={id("numbers")} type="number" min={-1} value={form.phoneNumbers} onChange={set("phoneNumbers")} />
          </Field>
        </div>
        <Field label="Features (comma separated)" htmlFor={id("features")}>
          <Input id={id("features")} value={form.features} onChange={set("features")} />
        </Field>
        <Button type="submit" disabled={save.busy}>
          {save.busy ? "Saving..." : "Save Plan"}
        </Button>
      </form>
    </Card>
  );
}

/** Plans: each plan's price, limits and features, edited in place. */
export function PlansTab() {
  const plans = useAdminPlans();
  if (plans.loading && !plans.data) return <p className="text-slate-500">Loading plans...</p>;
  return (
    <div className="space-y-4">
      {plans.data?.data.map((p) => (
        <PlanEditor
          key={`${p.id}-${p.price}-${p.monthlyContacts}-${p.monthlyMessages}`}
          plan={p}
          onSaved={() => void plans.reload()}
        />
      ))}
    </div>
  );
}
