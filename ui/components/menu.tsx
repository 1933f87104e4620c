import { useEffect, useRef, useState } from "react";
import { cx } from "./ui";

export type MenuItem = {
  label: string;
  onSelect: () => void;
  disabled?: boolean;
  /** A destructive action: red. */
  danger?: boolean;
  /** Why it is disabled, as a tooltip. */
  title?: string;
};

/** A "⋯" button opening a list of actions; a click outside or Escape closes it. `label` names the button. */
export function Menu({
  label,
  items,
  className,
  width = "w-52",
}: {
  label: string;
  items: MenuItem[];
  className?: string;
  width?: string;
}) {
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => box.current && !box.current.contains(e.target as Node) && setOpen(false);
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && setOpen(false);
    document.addEventListener("mousedown", onDown);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("mousedown", onDown);
      document.removeEventListener("keydown", onKey);
    };
  }, [open]);
  return (
    <div ref={box} className={cx("relative", className)}>
      <button
        type="button"
        aria-label={label}
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
        className="rounded-lg px-2 py-1 text-slate-600 hover:bg-slate-100"
      >
        ⋯
      </button>
      {open && (
        <div
          role="menu"
          className={cx(
            "absolute right-0 z-20 mt-1 overflow-hidden rounded-lg border border-slate-200 bg-white py-1 shadow-lg",
            width,
          )}
        >
          {items.map((i) => (
            <button
              key={i.label}
              type="button"
              role="menuitem"
              disabled={i.disabled}
              title={i.title}
              onClick={() => {
                setOpen(false);
                i.onSelect();
              }}
              className={cx(
                "block w-full px-3 py-2 text-left text-sm hover:bg-slate-100 disabled:cursor-not-allowed disabled:opacity-40 disabled:hover:bg-transparent",
                i.danger && "text-red-700",
              )}
            >
              {i.label}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
