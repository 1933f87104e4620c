import { useEffect, useState, type FormEvent } from "react";
import { emptyPhone, PhoneInput, phoneToSubmit, phoneValueFrom, regionOfLocale, type PhoneValue } from "../../../components/phone-input";
import { Alert, Button, Field, Input, Modal, Spinner } from "../../../components/ui";
import { api, errorMessage } from "../../../lib/api";
import { toast } from "../../../lib/toast";
import { parseTags, type Contact } from "./model";

type Form = { firstName: string; lastName: string; email: string; phone: PhoneValue; tags: string };

/** "Add New Contact" / "Edit Contact". */
export function ContactDialog({
  open,
  contact,
  locale,
  onClose,
  onSaved,
}: {
  open: boolean;
  contact: Contact | null;
  locale: string;
  onClose: () => void;
  onSaved: () => void;
}) {
  const region = regionOfLocale(locale) ?? "US";
  const blank = (): Form => ({ firstName: "", lastName: "", email: "", phone: emptyPhone(region), tags: "" });
  const [form, setForm] = useState<Form>(blank);
  const [error, setError] = useState("");
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    if (!open) return;
    setError("");
    setForm(
      contact
        ? {
            firstName: contact.firstName ?? "",
            lastName: contact.lastName ?? "",
            email: contact.email ?? "",
            phone: phoneValueFrom(contact.phone, region),
            tags: contact.tags.join(", "),
          }
        : blank(),
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open, contact]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const phone = phoneToSubmit(form.phone);
    const email = form.email.trim();
    if (!form.firstName.trim() && !form.lastName.trim()) return setError("Please enter at least a first or last name");
    if (!phone && !email) return setError("Please enter either a phone number or email address");
    setError("");
    setSaving(true);
    const body = {
      firstName: form.firstName.trim(),
      lastName: form.lastName.trim(),
      email,
      phone,
      country: form.phone.country ?? undefined,
      tags: parseTags(form.tags),
      customFields: contact?.customFields ?? {},
    };
    try {
      if (contact) await api(`/api/contacts/${contact.id}`, { method: "PUT", body });
      else await api("/api/contacts", { method: "POST", body });
      toast({ title: contact ? "Contact updated successfully" : "Contact added successfully" });
      onSaved();
      onClose();
    } catch (err) {
      const message = errorMessage(err, contact ? "Failed to update contact" : "Failed to add contact");
      setError(message);
      toast({ title: "Error", description: message, variant: "destructive" });
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal open={open} onClose={onClose} title={contact ? "Edit Contact" : "Add New Contact"}>
      <form onSubmit={submit} className="space-y-4" noValidate>
        <div className="grid grid-cols-2 gap-3">
          <Field label="First name" htmlFor="contact-first">
            <Input id="contact-first" value={form.firstName} onChange={(e) => setForm({ ...form, firstName: e.target.value })} />
          </Field>
          <Field label="Last name" htmlFor="contact-last">
            <Input id="contact-last" value={form.lastName} onChange={(e) => setForm({ ...form, lastName: e.target.value })} />
          </Field>
        </div>
        <Field label="Phone number" htmlFor="contact-phone">
          <PhoneInput id="contact-phone" value={form.phone} locale={locale} onChange={(phone) => setForm({ ...form, phone })} />
        </Field>
        <Field label="Email" htmlFor="contact-email">
          <Input id="contact-email" type="email" value={form.email} onChange={(e) => setForm({ ...form, email: e.target.value })} />
        </Field>
        <Field label="Tags" htmlFor="contact-tags" hint="Separate tags with commas">
          <Input id="contact-tags" value={form.tags} placeholder="vip, newsletter" onChange={(e) => setForm({ ...form, tags: e.target.value })} />
        </Field>
        {contact && Object.keys(contact.customFields).length > 0 && (
          <div className="rounded-lg bg-slate-50 p-3 text-sm">
            <p className="mb-1 font-medium text-slate-700">Custom fields</p>
            <dl className="grid grid-cols-2 gap-x-3 gap-y-1">
              {Object.entries(contact.customFields).map(([k, v]) => (
                <div key={k} className="contents">
                  <dt className="text-slate-500">{k}</dt>
                  <dd className="truncate">{v}</dd>
                </div>
              ))}
            </dl>
          </div>
        )}
        {error && <Alert>{error}</Alert>}
        <div className="flex justify-end gap-2">
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={saving}>
            {saving && <Spinner />}
            {contact ? "Save Changes" : "Add Contact"}
          </Button>
        </div>
      </form>
    </Modal>
  );
}
