import { useEffect, useState, type FormEvent } from "react";
import { INDUSTRIES } from "../../../../shared/users/regional-options";
import { Alert, Button, Card, Field, Input, Select } from "../../../components/ui";
import { refreshUser, setUser } from "../../../lib/auth";
import { toast } from "../../../lib/toast";
import { useMutation } from "../../../lib/use-mutation";
import { cancelEmailChange, confirmEmailChange, requestEmailChange, updateProfile, useProfile, type Profile } from "../../../api/users";

type Form = Pick<Profile, "firstName" | "lastName" | "businessName" | "industry" | "businessContact">;

const formOf = (p: Profile): Form => ({
  firstName: p.firstName,
  lastName: p.lastName,
  businessName: p.businessName,
  industry: p.industry,
  businessContact: p.businessContact,
});

/**
 * Account Settings' Business profile: the name that signs every STOP/HELP/keyword reply and fills {business}, the
 * industry, the contact the HELP reply gives, and the user's own name and email (a new email is verified by a code
 * sent to it before it takes effect).
 */
export function BusinessProfileCard() {
  const { data, reload } = useProfile();
  const [form, setForm] = useState<Form | null>(null);
  const save = useMutation(updateProfile, {
    onSuccess: async (saved) => {
      setForm(formOf(saved));
      await refreshUser();
      reload();
    },
    success: (saved) => ({ title: "Profile saved", description: `Replies are signed "${saved.signedAs}".` }),
    fallback: "Failed to save your profile",
    failureToast: "Error",
  });

  useEffect(() => {
    if (data && !form) setForm(formOf(data));
  }, [data, form]);

  if (!data || !form) return null;

  return (
    <Card className="p-6">
      <h2 className="text-lg font-semibold">Business Profile</h2>
      <p className="mb-5 text-sm text-slate-500">
        Your business name signs every STOP, HELP and keyword reply and fills <code>{"{business}"}</code> in messages. The HELP reply gives the
        contact below, as carriers expect.
      </p>
      <div className="grid gap-4 md:grid-cols-2">
        <Field label="Business name" htmlFor="profile-business">
          <Input id="profile-business" value={form.businessName} maxLength={120} placeholder={data.signedAs} onChange={(e) => setForm({ ...form, businessName: e.target.value })} />
        </Field>
        <Field label="Industry" htmlFor="profile-industry">
          <Select id="profile-industry" value={form.industry} onChange={(e) => setForm({ ...form, industry: e.target.value })}>
            <option value="">Choose your industry</option>
            {INDUSTRIES.map((i) => (
              <option key={i}>{i}</option>
            ))}
          </Select>
        </Field>
        <div className="md:col-span-2">
          <Field
            label="Contact for HELP replies"
            htmlFor="profile-contact"
            hint={`A phone number, email or website people who text you can use. Without one, HELP replies give ${data.email}.`}
          >
            <Input
              id="profile-contact"
              value={form.businessContact}
              maxLength={100}
              placeholder="(415) 555-0199, help@example.com or example.com"
              onChange={(e) => setForm({ ...form, businessContact: e.target.value })}
            />
          </Field>
        </div>
        <Field label="Your first name" htmlFor="profile-first">
          <Input id="profile-first" value={form.firstName} maxLength={100} autoComplete="given-name" onChange={(e) => setForm({ ...form, firstName: e.target.value })} />
        </Field>
        <Field label="Your last name" htmlFor="profile-last">
          <Input id="profile-last" value={form.lastName} maxLength={100} autoComplete="family-name" onChange={(e) => setForm({ ...form, lastName: e.target.value })} />
        </Field>
      </div>
      <Button className="mt-6" onClick={() => save.run(form)} disabled={save.busy}>
        {save.busy ? "Saving..." : "Save Profile"}
      </Button>
      <EmailChange profile={data} onChange={reload} />
    </Card>
  );
}

/** The account's email, and a change waiting for the code sent to the new address. */
function EmailChange({ profile, onChange }: { profile: Profile; onChange: () => void }) {
  const [editing, setEditing] = useState(false);
  const [email, setEmail] = useState("");
  const [code, setCode] = useState("");
  const { run, busy, error } = useMutation((work: () => Promise<void>) => work());

  const send = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      const answer = await requestEmailChange(email);
      toast({ title: "Code sent", description: answer.message });
      setEditing(false);
      setEmail("");
      onChange();
    });
  };
  const confirm = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      const answer = await confirmEmailChange(code);
      setUser(answer.user);
      setCode("");
      toast({ title: "Email changed", description: answer.message });
      onChange();
    });
  };
  const cancel = () =>
    void run(async () => {
      await cancelEmailChange();
      setCode("");
      onChange();
    });

  return (
    <section className="mt-8 border-t border-slate-200 pt-6" aria-labelledby="email-heading">
      <h3 id="email-heading" className="font-semibold">
        Email
      </h3>
      <p className="mt-1 break-all text-sm text-slate-600">
        You sign in and get account emails at <strong>{profile.email}</strong>.
      </p>
      {error && (
        <div className="mt-3">
          <Alert>{error}</Alert>
        </div>
      )}
      {profile.pendingEmail ? (
        <form onSubmit={confirm} className="mt-4 space-y-3" noValidate>
          <p className="break-all text-sm text-slate-700">
            We sent a 6-digit code to <strong>{profile.pendingEmail}</strong>. Your email changes when you enter it.
          </p>
          <div className="flex flex-col gap-3 sm:flex-row sm:items-end">
            <div className="sm:w-48">
              <Field label="Code from the new address" htmlFor="email-code">
                <Input id="email-code" inputMode="numeric" autoComplete="one-time-code" maxLength={6} value={code} onChange={(e) => setCode(e.target.value.replace(/\D/g, ""))} />
              </Field>
            </div>
            <Button type="submit" disabled={busy || code.length !== 6}>
              Confirm New Email
            </Button>
            <Button variant="secondary" onClick={cancel} disabled={busy}>
              Cancel Change
            </Button>
          </div>
        </form>
      ) : editing ? (
        <form onSubmit={send} className="mt-4 flex flex-col gap-3 sm:flex-row sm:items-end" noValidate>
          <div className="sm:w-80">
            <Field label="New email" htmlFor="email-new">
              <Input id="email-new" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} />
            </Field>
          </div>
          <Button type="submit" disabled={busy || !email.trim()}>
            Send Code
          </Button>
          <Button variant="ghost" onClick={() => setEditing(false)}>
            Cancel
          </Button>
        </form>
      ) : (
        <Button variant="secondary" className="mt-4" onClick={() => setEditing(true)}>
          Change Email
        </Button>
      )}
    </section>
  );
}
