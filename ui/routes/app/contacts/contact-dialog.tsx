import { useEffect, useState, type FormEvent } from "react";
import type { CountryCode } from "libphonenumber-js";
import {
  emptyPhone,
  PhoneInput,
  phoneToSubmit,
  phoneValueFrom,
  regionOfLocale,
  type PhoneValue,
} from "../../../components/phone-input";
import { Alert, Button, Field, Input, Modal, Spinner } from "../../../components/ui";
import { useUserSettings } from "../../../api/users";
import { createContact, fetchContact, updateContact, type ContactBody } from "../../../api/contacts";
import { ApiError, errorMessage } from "../../../lib/api";
import { useMutation } from "../../../lib/use-mutation";
import { parseTags, type Contact } from "./model";

type Form = { firstName: string; lastName: string; email: string; phone: PhoneValue; tags: string };
/** The contact that already has the typed number (a 409 from the server). */
type Existing = { id: string; name: string };

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
  // Numbers typed without a country start in the account's default country (Settings), not the language's region.
  const settings = useUserSettings(open);
  const region = ((settings.data?.defaultCountry as CountryCode | undefined) ?? regionOfLocale(locale) ?? "US") as CountryCode;
  const blank = (): Form => ({ firstName: "", lastName: "", email: "", phone: emptyPhone(region), tags: "" });
  const [form, setForm] = useState<Form>(blank);
  // What the dialog checks itself, or a failure to open a contact; the saves' failures are theirs.
  const [problem, setProblem] = useState("");
  const [existing, setExisting] = useState<Existing | null>(null);
  // "Open" on a duplicate number switches this dialog to editing the stored contact.
  const [opened, setOpened] = useState<Contact | null>(null);
  const editing = opened ?? contact;

  const formOf = (c: Contact): Form => ({
    firstName: c.firstName ?? "",
    lastName: c.lastName ?? "",
    email: c.email ?? "",
    phone: phoneValueFrom(c.phone, region),
    tags: c.tags.join(", "),
  });

  const clearErrors = () => {
    setProblem("");
    save.setError(null);
    addToExisting.setError(null);
  };
  useEffect(() => {
    if (!open) return;
    clearErrors();
    setExisting(null);
    setOpened(null);
    setForm(contact ? formOf(contact) : blank());
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open, contact]);

  // The settings arrive after the dialog opens: an untouched number takes their country.
  useEffect(() => {
    if (!settings.data || editing) return;
    setForm((f) => (f.phone.number ? f : { ...f, phone: emptyPhone(region) }));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [settings.data]);

  const openExisting = async (e: Existing) => {
    try {
      const c = await fetchContact(e.id);
      setOpened(c);
      setForm(formOf(c));
      setExisting(null);
      clearErrors();
    } catch (err) {
      setProblem(errorMessage(err, "Failed to open the contact"));
    }
  };

  /** Adds what was typed to the stored contact: its empty name and email filled, the tags added. */
  const addToExisting = useMutation(
    async (e: Existing) => {
      const c = await fetchContact(e.id);
      const typed = parseTags(form.tags);
      await updateContact(c.id, {
        firstName: c.firstName || form.firstName.trim(),
        lastName: c.lastName || form.lastName.trim(),
        email: c.email || form.email.trim(),
        phone: c.phone,
        tags: [...c.tags, ...typed.filter((t) => !c.tags.includes(t))],
        customFields: c.customFields,
      });
    },
    {
      onSuccess: () => {
        onSaved();
        onClose();
      },
      success: (_, e) => ({ title: "Contact updated successfully", description: `The details were added to ${e.name}.` }),
      fallback: "Failed to update contact",
    },
  );

  /** Answers false when the number is another contact's (a 409): the dialog offers that contact instead. */
  const save = useMutation(
    async (body: ContactBody) => {
      try {
        if (editing) await updateContact(editing.id, body);
        else await createContact(body);
        return true;
      } catch (err) {
        const other = err instanceof ApiError && err.code === "conflict" ? err.body : null;
        if (!other || typeof other.existingContactId !== "string") throw err;
        setExisting({
          id: other.existingContactId,
          name: typeof other.existingName === "string" ? other.existingName : "another contact",
        });
        return false;
      }
    },
    {
      onSuccess: (saved) => {
        if (!saved) return;
        onSaved();
        onClose();
      },
      success: (saved) => (saved ? (editing ? "Contact updated successfully" : "Contact added successfully") : null),
      fallback: editing ? "Failed to update contact" : "Failed to add contact",
      failureToast: "Error",
    },
  );
  const saving = save.busy || addToExisting.busy;
  const error = problem || save.error || addToExisting.error;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const phone = phoneToSubmit(form.phone);
    const email = form.email.trim();
    clearErrors();
    if (!form.firstName.trim() && !form.lastName.trim()) return setProblem("Please enter at least a first or last name");
    if (!phone && !email) return setProblem("Please enter either a phone number or email address");
    setExisting(null);
    void save.run({
      firstName: form.firstName.trim(),
      lastName: form.lastName.trim(),
      email,
      phone,
      country: form.phone.country ?? undefined,
      tags: parseTags(form.tags),
      customFields: editing?.customFields ?? {},
    });
  };

  return (
    <Modal open={open} onClose={onClose} title={editing ? "Edit Contact" : "Add New Contact"}>
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
          <Input
            id="contact-email"
            type="email"
            value={form.email}
            onChange={(e) => setForm({ ...form, email: e.target.value })}
          />
        </Field>
        <Field label="Tags" htmlFor="contact-tags" hint="Separate tags with commas">
          <Input
            id="contact-tags"
            value={form.tags}
            placeholder="vip, newsletter"
            onChange={(e) => setForm({ ...form, tags: e.target.value })}
          />
        </Field>
        {editing && Object.keys(editing.customFields).length > 0 && (
          <div className="rounded-lg bg-slate-50 p-3 text-sm">
            <p className="mb-1 font-medium text-slate-700">Custom fields</p>
            <dl className="grid grid-cols-2 gap-x-3 gap-y-1">
              {Object.entries(editing.customFields).map(([k, v]) => (
                <div key={k} className="contents">
                  <dt className="text-slate-500">{k}</dt>
                  <dd className="truncate">{v}</dd>
                </div>
              ))}
            </dl>
          </div>
        )}
        {error && <Alert>{error}</Alert>}
        {existing && (
          <div
            role="alert"
            className="rounded-lg border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900"
            data-testid="duplicate-phone"
          >
            <p>
              <strong>{existing.name}</strong> already has this phone number.
            </p>
            <div className="mt-2 flex flex-wrap gap-2">
              <Button variant="secondary" onClick={() => void openExisting(existing)}>
                Open {existing.name}
              </Button>
              <Button variant="secondary" disabled={saving} onClick={() => void addToExisting.run(existing)}>
                Add these details to {existing.name}
              </Button>
            </div>
          </div>
        )}
        <div className="flex justify-end gap-2">
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={saving}>
            {saving && <Spinner />}
            {editing ? "Save Changes" : "Add Contact"}
          </Button>
        </div>
      </form>
    </Modal>
  );
}
