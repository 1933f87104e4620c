import { useMemo } from "react";
import { countriesFor } from "../../../components/phone-input";
import { Select } from "../../../components/ui";

/** Every country by name with its dial code, for the default country of numbers written without "+". */
export function CountrySelect({
  id,
  value,
  onChange,
  locale,
}: {
  id: string;
  value: string;
  onChange: (code: string) => void;
  locale: string;
}) {
  const countries = useMemo(() => countriesFor(locale), [locale]);
  return (
    <Select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
      {countries.map((c) => (
        <option key={c.code} value={c.code}>
          {c.name} ({c.dialCode})
        </option>
      ))}
    </Select>
  );
}
