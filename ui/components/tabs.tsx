import { useRef, type KeyboardEvent, type ReactNode } from "react";
import { cx } from "./ui";

export type TabItem<T extends string> = { value: T; label: ReactNode };

const STYLES = {
  /** Under a page heading: a line under the row, the chosen tab underlined. */
  underline: {
    list: "flex flex-wrap gap-1 border-b border-slate-200",
    tab: "-mb-px border-b-2 px-3 py-2 text-sm",
    on: "border-brand-600 font-medium text-brand-700",
    off: "border-transparent text-slate-600 hover:text-slate-900",
  },
  /** Inside a card or form: a grey track, the chosen tab a white pill. */
  pill: {
    list: "flex gap-1 rounded-lg bg-slate-100 p-1",
    tab: "rounded-md px-3 py-1.5 text-sm",
    on: "bg-white font-medium text-slate-900 shadow-sm",
    off: "text-slate-600 hover:text-slate-900",
  },
} as const;

/**
 * A row of tabs (WAI-ARIA tabs: the chosen one is the only tab stop, arrow keys move between them). Each tab is
 * `${idPrefix}-tab-${value}` and controls `${idPrefix}-panel-${value}`, which <TabPanel> renders.
 */
export function Tabs<T extends string>({
  tabs,
  value,
  onChange,
  label,
  idPrefix,
  variant = "underline",
  fill = false,
  className,
}: {
  tabs: readonly TabItem<T>[];
  value: T;
  onChange: (value: T) => void;
  label?: string;
  idPrefix: string;
  variant?: keyof typeof STYLES;
  /** Tabs share the row's width equally. */
  fill?: boolean;
  className?: string;
}) {
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  const style = STYLES[variant];
  const onKey = (e: KeyboardEvent, i: number) => {
    const step = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
    if (!step) return;
    e.preventDefault();
    const next = (i + step + tabs.length) % tabs.length;
    onChange(tabs[next]!.value);
    refs.current[next]?.focus();
  };
  return (
    <div role="tablist" aria-label={label} className={cx(style.list, className)}>
      {tabs.map((t, i) => (
        <button
          key={t.value}
          ref={(el) => {
            refs.current[i] = el;
          }}
          type="button"
          role="tab"
          id={`${idPrefix}-tab-${t.value}`}
          aria-selected={value === t.value}
          aria-controls={`${idPrefix}-panel-${t.value}`}
          tabIndex={value === t.value ? 0 : -1}
          onKeyDown={(e) => onKey(e, i)}
          onClick={() => onChange(t.value)}
          className={cx(style.tab, fill && "flex-1 whitespace-nowrap", value === t.value ? style.on : style.off)}
        >
          {t.label}
        </button>
      ))}
    </div>
  );
}

/** The panel of the chosen tab of <Tabs idPrefix={idPrefix}>, named by its tab. */
export function TabPanel({
  idPrefix,
  value,
  className,
  children,
}: {
  idPrefix: string;
  value: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div role="tabpanel" id={`${idPrefix}-panel-${value}`} aria-labelledby={`${idPrefix}-tab-${value}`} className={className}>
      {children}
    </div>
  );
}
