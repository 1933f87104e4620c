import { useState } from "react";
import { Button, Input, Select } from "../../../components/ui";

/** The merge fields every contact has, as they are written into a message (the first with the usual fallback). */
export const MERGE_FIELDS: { token: string; label: string }[] = [
  { token: "{firstName|there}", label: "First name (else “there”)" },
  { token: "{lastName}", label: "Last name" },
  { token: "{fullName}", label: "Full name" },
  { token: "{phone}", label: "Phone" },
  { token: "{email}", label: "Email" },
  { token: "{business}", label: "Your business name" },
];

/** "Insert field": a built-in merge field, or a custom field of the contacts by its name, handed to `onInsert`. */
export function MergeFieldInserter({ onInsert, idPrefix }: { onInsert: (token: string) => void; idPrefix: string }) {
  const [custom, setCustom] = useState("");
  return (
    <div className="flex flex-wrap items-center gap-2">
      <Select
        aria-label="Insert a merge field"
        id={`${idPrefix}-field`}
        className="!w-auto !py-1 text-xs"
        value=""
        onChange={(e) => e.target.value && onInsert(e.target.value)}
      >
        <option value="">Insert field…</option>
        {MERGE_FIELDS.map((f) => (
          <option key={f.token} value={f.token}>
            {f.label}
          </option>
        ))}
      </Select>
      <Input
        aria-label="Custom field name"
        placeholder="Custom field"
        className="!w-32 !py-1 text-xs"
        maxLength={100}
        value={custom}
        onChange={(e) => setCustom(e.target.value)}
      />
      <Button
        variant="secondary"
        className="!px-2 !py-1 text-xs"
        disabled={!/^[A-Za-z_][\w .-]*$/.test(custom.trim())}
        onClick={() => {
          onInsert(`{${custom.trim()}}`);
          setCustom("");
        }}
      >
        Insert
      </Button>
    </div>
  );
}
