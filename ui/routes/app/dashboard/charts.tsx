/**
 * The results dashboard's charts, drawn with uPlot (about 22 KB gzipped; only this module imports it, so only the
 * dashboard's chunk carries it). Each chart can be switched to a table, and while it shows the picture the same
 * table is there for screen readers; the canvas itself is hidden from them.
 */
import { useEffect, useRef, useState, type ReactNode } from "react";
import uPlot from "uplot";
import { ScrollBox } from "../../../components/scroll-box";
import { Card, cx } from "../../../components/ui";

/** uPlot's layout rules (from uPlot.min.css, v1.6): the legend is ours, in React, so its rules are left out. */
const UPLOT_CSS = `.uplot,.uplot *,.uplot *::before,.uplot *::after{box-sizing:border-box}.uplot{line-height:1.5;width:min-content}
.u-wrap{position:relative;user-select:none}.u-over,.u-under{position:absolute}.u-under{overflow:hidden}
.uplot canvas{display:block;position:relative;width:100%;height:100%}.u-axis{position:absolute}
.u-select{background:rgba(0,0,0,.07);position:absolute;pointer-events:none}
.u-cursor-x,.u-cursor-y{position:absolute;left:0;top:0;pointer-events:none;will-change:transform}
.u-hz .u-cursor-x,.u-vt .u-cursor-y{height:100%;border-right:1px dashed #94a3b8}
.u-hz .u-cursor-y,.u-vt .u-cursor-x{width:100%;border-bottom:1px dashed #94a3b8}
.u-cursor-pt{position:absolute;top:0;left:0;border-radius:50%;border:0 solid;pointer-events:none;will-change:transform;background-clip:padding-box!important}
.u-axis.u-off,.u-select.u-off,.u-cursor-x.u-off,.u-cursor-y.u-off,.u-cursor-pt.u-off{display:none}`;

function useUplotStyles() {
  useEffect(() => {
    if (document.getElementById("uplot-css")) return;
    const style = document.createElement("style");
    style.id = "uplot-css";
    style.textContent = UPLOT_CSS;
    document.head.appendChild(style);
  }, []);
}

export type ChartSeries = { label: string; color: string; values: (number | null)[] };

const AXIS = { stroke: "#64748b", grid: { stroke: "#f1f5f9" }, ticks: { stroke: "#e2e8f0" }, font: "11px system-ui, sans-serif" };

/** "2026-03-08" as "Mar 8" in the user's language (the date is already the account's day: no zone applies). */
export function shortDate(date: string, locale: string) {
  return new Intl.DateTimeFormat(locale, { month: "short", day: "numeric", timeZone: "UTC" }).format(new Date(`${date}T00:00:00Z`));
}

/**
 * One chart: `kind` bars are stacked in the order given (the first at the bottom), lines are drawn as they are.
 * The x axis is the list of days, by index, so the server's local dates are shown as they are.
 */
function UplotChart({
  dates,
  series,
  kind,
  locale,
  percent,
  label,
}: {
  dates: string[];
  series: ChartSeries[];
  kind: "stacked" | "lines";
  locale: string;
  percent?: boolean;
  label: string;
}) {
  useUplotStyles();
  const box = useRef<HTMLDivElement>(null);
  const [hover, setHover] = useState<number | null>(null);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const x = dates.map((_, i) => i);
    // Stacked bars: each series drawn as the running total up to it, the tallest first so the others paint over it.
    const sums = series.map((_, s) => dates.map((_, i) => series.slice(0, s + 1).reduce((a, b) => a + (b.values[i] ?? 0), 0)));
    const order = kind === "stacked" ? series.map((_, s) => series.length - 1 - s) : series.map((_, s) => s);
    const data: uPlot.AlignedData = [x, ...order.map((s) => (kind === "stacked" ? sums[s]! : series[s]!.values))];
    const labels = dates.map((d) => shortDate(d, locale));
    const bars = uPlot.paths.bars!({ size: [0.7, 28] });
    const opts: uPlot.Options = {
      width: el.clientWidth,
      height: 220,
      legend: { show: false },
      cursor: { drag: { x: false, y: false }, points: { size: 7 } },
      scales: { x: { time: false, range: (_u, min, max) => [min - 0.5, max + 0.5] }, y: percent ? { range: [0, 100] } : { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] } },
      axes: [
        { ...AXIS, values: (_u, ticks) => ticks.map((t) => (Number.isInteger(t) ? (labels[t] ?? "") : "")), space: 48 },
        { ...AXIS, size: 44, values: (_u, ticks) => ticks.map((t) => (percent ? `${t}%` : Number.isInteger(t) ? new Intl.NumberFormat(locale, { notation: "compact" }).format(t) : "")) },
      ],
      series: [
        {},
        ...order.map((s) => {
          const c = series[s]!;
          return kind === "stacked"
            ? { label: c.label, stroke: c.color, fill: c.color, paths: bars, points: { show: false } }
            : { label: c.label, stroke: c.color, width: 2, spanGaps: false, points: { show: dates.length <= 31, size: 4, fill: c.color } };
        }),
      ],
      hooks: { setCursor: [(u) => setHover(u.cursor.idx ?? null)] },
    };
    const plot = new uPlot(opts, data, el);
    const resize = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height: 220 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
    // Rebuilt only when the figures change (the caller's arrays are new on every render, the hover included).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [JSON.stringify([dates, series, kind, percent]), locale]);

  const format = (v: number | null) => (v === null ? "—" : percent ? `${v}%` : new Intl.NumberFormat(locale).format(v));
  return (
    <div>
      <ul className="mb-2 flex min-h-5 flex-wrap gap-x-4 gap-y-1 text-xs text-slate-600" aria-hidden>
        {hover !== null && <li className="font-medium text-slate-900">{shortDate(dates[hover]!, locale)}</li>}
        {series.map((s) => (
          <li key={s.label} className="flex items-center gap-1.5">
            <span className="inline-block h-2.5 w-2.5 rounded-sm" style={{ background: s.color }} />
            {s.label}
            {hover !== null && <strong className="text-slate-900">{format(s.values[hover] ?? null)}</strong>}
          </li>
        ))}
      </ul>
      <div ref={box} className="w-full" role="img" aria-label={label} />
    </div>
  );
}

/**
 * The data of a chart as a table: a row per day, a column per series. Under the chart it is for screen readers only
 * (no box to scroll); shown on its own it scrolls in a box a keyboard can reach.
 */
function ChartTable({ dates, series, locale, percent, caption, screenReaderOnly }: { dates: string[]; series: ChartSeries[]; locale: string; percent?: boolean; caption: string; screenReaderOnly?: boolean }) {
  const format = (v: number | null) => (v === null ? "—" : percent ? `${v}%` : new Intl.NumberFormat(locale).format(v));
  const table = (
    <table className="w-full text-left text-sm">
      <caption className="sr-only">{caption}</caption>
      <thead className="sticky top-0 bg-white text-xs uppercase text-slate-500">
        <tr>
          <th scope="col" className="px-2 py-1.5 font-medium">
            Day
          </th>
          {series.map((s) => (
            <th key={s.label} scope="col" className="px-2 py-1.5 text-right font-medium">
              {s.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {dates.map((d, i) => (
          <tr key={d}>
            <th scope="row" className="px-2 py-1 font-normal text-slate-600">
              {shortDate(d, locale)}
            </th>
            {series.map((s) => (
              <td key={s.label} className="px-2 py-1 text-right tabular-nums">
                {format(s.values[i] ?? null)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
  if (screenReaderOnly) return <div className="sr-only">{table}</div>;
  return (
    <ScrollBox label={`${caption}: table`} className="max-h-72">
      {table}
    </ScrollBox>
  );
}

/** A card with a chart, its table for screen readers, and a Chart/Table switch. */
export function ChartCard({
  title,
  description,
  dates,
  series,
  kind,
  locale,
  percent,
  empty,
  testId,
  footer,
}: {
  title: string;
  description: string;
  dates: string[];
  series: ChartSeries[];
  kind: "stacked" | "lines";
  locale: string;
  percent?: boolean;
  /** Shown instead of the chart when there is nothing to draw. */
  empty?: string | null;
  testId: string;
  footer?: ReactNode;
}) {
  const [view, setView] = useState<"chart" | "table">("chart");
  return (
    <Card className="min-w-0 p-5" >
      <section aria-labelledby={`${testId}-title`} data-testid={testId}>
        <div className="mb-3 flex items-start justify-between gap-3">
          <div className="min-w-0">
            <h2 id={`${testId}-title`} className="font-semibold text-slate-900">
              {title}
            </h2>
            <p className="text-xs text-slate-500">{description}</p>
          </div>
          {!empty && (
            <div className="flex shrink-0 rounded-lg bg-slate-100 p-0.5 text-xs" role="group" aria-label={`${title}: show as`}>
              {(["chart", "table"] as const).map((v) => (
                <button
                  key={v}
                  type="button"
                  aria-pressed={view === v}
                  onClick={() => setView(v)}
                  className={cx("rounded-md px-2.5 py-1 capitalize", view === v ? "bg-white font-medium shadow-sm" : "text-slate-600")}
                >
                  {v}
                </button>
              ))}
            </div>
          )}
        </div>
        {empty ? (
          <p className="flex h-40 items-center justify-center rounded-lg bg-slate-50 text-center text-sm text-slate-500">{empty}</p>
        ) : view === "chart" ? (
          <>
            <UplotChart dates={dates} series={series} kind={kind} locale={locale} percent={percent} label={`${title}: chart; the same figures follow as a table`} />
            <ChartTable dates={dates} series={series} locale={locale} percent={percent} caption={title} screenReaderOnly />
          </>
        ) : (
          <ChartTable dates={dates} series={series} locale={locale} percent={percent} caption={title} />
        )}
        {footer}
      </section>
    </Card>
  );
}
