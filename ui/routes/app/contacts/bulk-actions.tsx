import type { ReactNode } from "react";
import { Button, Input } from "../../../components/ui";
import { parseTags } from "./model";

/** Shown while contacts are selected: delete them, add tags to them, or clear the selection. */
export function BulkActions({
  count,
  busy,
  tagText,
  onTagText,
  onDelete,
  onTag,
  onClear,
  children,
}: {
  count: number;
  busy: boolean;
  tagText: string;
  onTagText: (text: string) => void;
  onDelete: () => void;
  onTag: () => void;
  onClear: () => void;
  /** Further actions on the selection (Add to drip). */
  children?: ReactNode;
}) {
  return (
    <div
      role="toolbar"
      aria-label="Bulk actions"
      className="flex flex-wrap items-center gap-3 border-b border-slate-200 bg-brand-50 px-4 py-3"
    >
      <span className="text-sm font-medium">{count} selected</span>
      <Button variant="danger" onClick={onDelete} disabled={busy}>
        Delete selected
      </Button>
      <Input
        aria-label="Tags to add"
        placeholder="tag1, tag2"
        className="max-w-48"
        value={tagText}
        onChange={(e) => onTagText(e.target.value)}
        onKeyDown={(e) => e.key === "Enter" && onTag()}
      />
      <Button variant="secondary" onClick={onTag} disabled={busy || parseTags(tagText).length === 0}>
        Add tags
      </Button>
      {children}
      <Button variant="ghost" onClick={onClear}>
        Clear
      </Button>
    </div>
  );
}
