import { useEffect, useState } from "react";
import { Alert, Button, cx, Field, Input, Modal, Select, Spinner } from "../../../components/ui";
import { addPhoneNumber } from "../../../api/phone-numbers";
import { fetchAvailableNumbers } from "../../../api/providers";
import { submitWith, useMutation } from "../../../lib/use-mutation";
import { toast } from "../../../lib/toast";
import {
  checkSender,
  defaultRate,
  formatSender,
  guessKind,
  NUMBER_KINDS,
  PROVIDER_NAMES,
  type AvailableNumber,
  type NumberKind,
  type PhoneNumber,
  type Provider,
} from "./model";

type Source = "fetch" | "manual";
const FETCH_FAILED = "Failed to connect to provider API";
const NONE_AVAILABLE = "No phone numbers available from this provider";

/** "Add Phone Number": a number of an active provider, picked from the provider's list or typed. */
export function NumberDialog({
  open,
  providers,
  existing,
  onClose,
  onAdded,
}: {
  open: boolean;
  providers: Provider[];
  existing: PhoneNumber[];
  onClose: () => void;
  onAdded: () => void;
}) {
  const active = providers.filter((p) => p.isActive);
  const [providerId, setProviderId] = useState("");
  const [source, setSource] = useState<Source>("fetch");
  const [available, setAvailable] = useState<AvailableNumber[] | null>(null);
  const [fetchError, setFetchError] = useState("");
  const [phoneNumber, setPhoneNumber] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [kind, setKind] = useState<NumberKind>("long_code");
  const [kindTouched, setKindTouched] = useState(false);
  const [rate, setRate] = useState("1");
  const [rateTouched, setRateTouched] = useState(false);
  const [isDefault, setIsDefault] = useState(false);
  const add = useMutation(addPhoneNumber, {
    onSuccess: () => {
      onAdded();
      onClose();
    },
    success: (_added, number) => ({ title: "Phone number added", description: `${formatSender(number.phoneNumber)} can now send messages.` }),
    fallback: "Failed to add phone number",
  });
  const { error, setError } = add;

  useEffect(() => {
    if (!open) return;
    const first = active.find((p) => p.isDefault) ?? active[0];
    setProviderId(first?.id ?? "");
    setSource("fetch");
    setAvailable(null);
    setFetchError("");
    setPhoneNumber("");
    setDisplayName("");
    setKind("long_code");
    setKindTouched(false);
    setRate("1");
    setRateTouched(false);
    setIsDefault(existing.length === 0);
    setError("");
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);

  const taken = new Set(existing.map((n) => n.phoneNumber));

  const applyKind = (next: NumberKind) => {
    setKind(next);
    if (!rateTouched) setRate(String(defaultRate(next)));
  };

  const typeNumber = (value: string) => {
    setPhoneNumber(value);
    setError("");
    if (!kindTouched) applyKind(guessKind(value));
  };

  // The provider's numbers for sale; none, or the provider's refusal, is said in the list's place and in a toast.
  const fetching = useMutation(
    async () => {
      try {
        return await fetchAvailableNumbers(providerId);
      } catch (err) {
        setFetchError(FETCH_FAILED);
        throw err;
      }
    },
    {
      onSuccess: (result) => {
        if (result.success && result.numbers.length > 0) return setAvailable(result.numbers);
        const reason = result.success ? NONE_AVAILABLE : result.error || FETCH_FAILED;
        setFetchError(reason);
        toast({ title: "No numbers found", description: reason, variant: "destructive" });
      },
      failureToast: () => ({ title: "Error", description: FETCH_FAILED, variant: "destructive" }),
    },
  );
  const fetchNumbers = () => {
    setFetchError("");
    setAvailable(null);
    void fetching.run();
  };

  const pick = (n: AvailableNumber) => {
    typeNumber(n.phoneNumber);
    if (!displayName.trim() && n.displayName && n.displayName !== n.phoneNumber) setDisplayName(n.displayName);
  };

  const submit = () => {
    if (!providerId) return setError("Please choose an active provider");
    const checked = checkSender(phoneNumber);
    if ("error" in checked) return setError(source === "fetch" && !phoneNumber ? "Pick a number from the list" : checked.error);
    const messagesPerSecond = Number(rate);
    if (!(messagesPerSecond > 0)) return setError("Messages per second must be a number above 0");
    return add.run({ providerId, phoneNumber: checked.value, displayName: displayName.trim() || undefined, kind, messagesPerSecond, isDefault });
  };

  const sourceButton = (value: Source, label: string) => (
    <button
      type="button"
      role="radio"
      aria-checked={source === value}
      onClick={() => {
        if (value !== source) typeNumber("");
        setSource(value);
      }}
      className={cx("flex-1 rounded-md py-2 text-sm font-medium", source === value ? "bg-white shadow-sm" : "text-slate-600")}
    >
      {label}
    </button>
  );

  return (
    <Modal open={open} onClose={onClose} title="Add Phone Number">
      <form onSubmit={submitWith(submit)} className="space-y-4" noValidate>
        <Field label="Provider" htmlFor="number-provider" hint="Only active providers can be chosen.">
          <Select
            id="number-provider"
            value={providerId}
            onChange={(e) => {
              setProviderId(e.target.value);
              setAvailable(null);
              setFetchError("");
            }}
          >
            {active.length === 0 && <option value="">No active provider</option>}
            {active.map((p) => (
              <option key={p.id} value={p.id}>
                {p.displayName} ({PROVIDER_NAMES[p.provider]})
              </option>
            ))}
          </Select>
        </Field>

        <div role="radiogroup" aria-label="How to add the number" className="flex gap-1 rounded-lg bg-slate-100 p-1">
          {sourceButton("fetch", "Fetch from provider")}
          {sourceButton("manual", "Enter manually")}
        </div>

        {source === "fetch" ? (
          <div className="space-y-2">
            <Button variant="secondary" onClick={fetchNumbers} disabled={!providerId || fetching.busy} className="w-full">
              {fetching.busy && <Spinner />}
              {available ? "Fetch again" : "Fetch numbers"}
            </Button>
            {fetchError && <Alert>{fetchError}</Alert>}
            {available && (
              <fieldset className="max-h-56 space-y-1 overflow-y-auto rounded-lg border border-slate-200 p-2">
                <legend className="px-1 text-sm font-medium text-slate-700">Numbers on this account</legend>
                {available.map((n) => {
                  const added = taken.has(n.phoneNumber);
                  return (
                    <label
                      key={n.phoneNumber}
                      className={cx(
                        "flex cursor-pointer items-center gap-3 rounded-md px-2 py-1.5 text-sm hover:bg-slate-50",
                        added && "cursor-not-allowed opacity-50",
                        phoneNumber === n.phoneNumber && "bg-brand-50",
                      )}
                    >
                      <input
                        type="radio"
                        name="available-number"
                        disabled={added}
                        checked={phoneNumber === n.phoneNumber}
                        onChange={() => pick(n)}
                      />
                      <span className="flex-1">
                        <span className="font-medium">{formatSender(n.phoneNumber)}</span>
                        {n.displayName && n.displayName !== n.phoneNumber && (
                          <span className="block text-xs text-slate-500">{n.displayName}</span>
                        )}
                      </span>
                      <span className="text-xs text-slate-500">{added ? "Already added" : n.capabilities.join(", ")}</span>
                    </label>
                  );
                })}
              </fieldset>
            )}
          </div>
        ) : (
          <Field
            label="Phone number"
            htmlFor="number-value"
            hint="International format with the country code, e.g. +14155550123; or a short code."
          >
            <Input
              id="number-value"
              inputMode="tel"
              autoComplete="off"
              placeholder="+14155550123"
              value={phoneNumber}
              onChange={(e) => typeNumber(e.target.value)}
            />
          </Field>
        )}

        <Field label="Display name (optional)" htmlFor="number-name">
          <Input
            id="number-name"
            value={displayName}
            placeholder="e.g. Front desk"
            onChange={(e) => setDisplayName(e.target.value)}
          />
        </Field>

        <div className="grid grid-cols-2 gap-3">
          <Field label="Kind" htmlFor="number-kind">
            <Select
              id="number-kind"
              value={kind}
              onChange={(e) => {
                setKindTouched(true);
                applyKind(e.target.value as NumberKind);
              }}
            >
              {NUMBER_KINDS.map((k) => (
                <option key={k.value} value={k.value}>
                  {k.label}
                </option>
              ))}
            </Select>
          </Field>
          <Field label="Messages per second" htmlFor="number-rate">
            <Input
              id="number-rate"
              type="number"
              min="0.1"
              step="any"
              inputMode="decimal"
              value={rate}
              onChange={(e) => {
                setRateTouched(true);
                setRate(e.target.value);
              }}
            />
          </Field>
        </div>
        <p className="-mt-2 text-xs text-slate-500">
          What the carrier allows this number: usually 1 per second for a long code, 3 for toll-free and 30 for a short code.
        </p>

        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={isDefault} onChange={(e) => setIsDefault(e.target.checked)} />
          Use as the default sender
        </label>

        {error && <Alert>{error}</Alert>}
        <div className="flex justify-end gap-2">
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={add.busy || !providerId}>
            {add.busy && <Spinner />}
            Add Number
          </Button>
        </div>
      </form>
    </Modal>
  );
}
