import { useEffect, useState } from "react";
import { Alert, Button, Field, Input, Modal, Select, Spinner } from "../../../components/ui";
import { addProvider } from "../../../api/providers";
import { submitWith, useMutation } from "../../../lib/use-mutation";
import { PROVIDER_NAMES, type Provider, type ProviderFields, type ProviderKind } from "./model";

type Errors = Record<string, string>;

const KINDS: ProviderKind[] = ["simulator", "twilio", "telnyx", "brevo", "textmagic", "clicksend"];

/** "Add Provider": the provider first, then its display name and credential fields (from the server). */
export function ProviderDialog({
  open,
  fields,
  hasDefault,
  onClose,
  onAdded,
}: {
  open: boolean;
  fields: ProviderFields | null;
  hasDefault: boolean;
  onClose: () => void;
  onAdded: (p: Provider) => void;
}) {
  const [kind, setKind] = useState<ProviderKind | "">("");
  const [displayName, setDisplayName] = useState("");
  const [nameTouched, setNameTouched] = useState(false);
  const [credentials, setCredentials] = useState<Record<string, string>>({});
  const [isDefault, setIsDefault] = useState(false);
  const [errors, setErrors] = useState<Errors>({});
  const add = useMutation(addProvider, {
    onSuccess: (created) => {
      onAdded(created);
      onClose();
    },
    success: (created) => ({ title: "SMS provider added", description: `${created.displayName} is ready. Test the connection, then add a phone number.` }),
    fallback: "Failed to create SMS provider",
    failureToast: "Error",
  });
  const { error: failure, setError: setFailure } = add;

  useEffect(() => {
    if (!open) return;
    setKind("");
    setDisplayName("");
    setNameTouched(false);
    setCredentials({});
    setIsDefault(!hasDefault);
    setErrors({});
    setFailure("");
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);

  const credentialFields = kind && fields ? fields[kind] : [];

  const choose = (next: ProviderKind | "") => {
    setKind(next);
    setCredentials({});
    setErrors({});
    if (!nameTouched) setDisplayName(next ? PROVIDER_NAMES[next] : "");
  };

  const validate = (): Errors => {
    const found: Errors = {};
    if (!kind) {
      found.provider = "Please choose a provider";
      return found;
    }
    if (!displayName.trim()) found.displayName = "Display name is required";
    for (const f of credentialFields) if (!credentials[f.name]?.trim()) found[f.name] = `${f.label} is required`;
    return found;
  };

  const submit = () => {
    const found = validate();
    setErrors(found);
    setFailure("");
    if (Object.keys(found).length || !kind) return;
    const secrets = Object.fromEntries(credentialFields.map((f) => [f.name, credentials[f.name]!.trim()]));
    return add.run({ provider: kind, displayName: displayName.trim(), isDefault, ...secrets });
  };

  const fieldError = (name: string) =>
    errors[name] && (
      <p id={`provider-${name}-error`} className="text-xs text-red-600">
        {errors[name]}
      </p>
    );
  const described = (name: string) =>
    errors[name] ? { "aria-invalid": true, "aria-describedby": `provider-${name}-error` } : {};

  return (
    <Modal open={open} onClose={onClose} title="Add Provider">
      <form onSubmit={submitWith(submit)} className="space-y-4" noValidate>
        <Field label="Provider" htmlFor="provider-kind">
          <Select
            id="provider-kind"
            value={kind}
            onChange={(e) => choose(e.target.value as ProviderKind | "")}
            {...described("provider")}
          >
            <option value="">Choose a provider…</option>
            {KINDS.map((k) => (
              <option key={k} value={k}>
                {fields?.labels[k] ?? PROVIDER_NAMES[k]}
              </option>
            ))}
          </Select>
          {fieldError("provider")}
        </Field>

        {kind === "simulator" && (
          <Alert tone="info">
            The simulator sends no real messages. It accepts every send, reports delivery back like a real provider and gives you
            numbers to test with, so you can try campaigns, replies and opt-outs end to end.
          </Alert>
        )}

        {kind && (
          <>
            <Field label="Display name" htmlFor="provider-name" hint="Shown in lists, e.g. “Main Twilio account”.">
              <Input
                id="provider-name"
                value={displayName}
                onChange={(e) => {
                  setNameTouched(true);
                  setDisplayName(e.target.value);
                }}
                {...described("displayName")}
              />
              {fieldError("displayName")}
            </Field>
            {!fields && (
              <p className="flex items-center gap-2 text-sm text-slate-500">
                <Spinner /> Loading the credential fields…
              </p>
            )}
            {credentialFields.map((f) => (
              <Field key={f.name} label={f.label} htmlFor={`provider-${f.name}`}>
                <Input
                  id={`provider-${f.name}`}
                  type={f.secret ? "password" : "text"}
                  autoComplete="off"
                  spellCheck={false}
                  placeholder={f.placeholder}
                  value={credentials[f.name] ?? ""}
                  onChange={(e) => setCredentials({ ...credentials, [f.name]: e.target.value })}
                  {...described(f.name)}
                />
                {fieldError(f.name)}
              </Field>
            ))}
            {credentialFields.length > 0 && (
              <p className="text-xs text-slate-500">
                Credentials are encrypted on this server and never shown again; only their last characters are.
              </p>
            )}
            <label className="flex items-center gap-2 text-sm">
              <input type="checkbox" checked={isDefault} onChange={(e) => setIsDefault(e.target.checked)} />
              Use as the default provider
            </label>
          </>
        )}

        {failure && <Alert>{failure}</Alert>}
        <div className="flex justify-end gap-2">
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={add.busy}>
            {add.busy && <Spinner />}
            Add Provider
          </Button>
        </div>
      </form>
    </Modal>
  );
}
