import { Icon, type IconName } from "../../components/icons";
import type { ReactNode } from "react";
import { BackToHome } from "../../components/public-layout";
import { cx } from "../../components/ui";

/** The top of every static marketing page: back link, a small label, the page's only h1 and a lead paragraph. */
export function PageIntro({
  eyebrow,
  title,
  children,
  back,
}: {
  eyebrow?: string;
  title: string;
  children?: ReactNode;
  back?: ReactNode;
}) {
  return (
    <div className="border-b border-slate-200 bg-gradient-to-b from-brand-50 to-white">
      <div className="mx-auto max-w-6xl px-4 pb-12 pt-6 sm:pb-16">
        {back ?? <BackToHome />}
        <div className="mx-auto mt-8 max-w-3xl text-center">
          {eyebrow && <p className="text-sm font-semibold uppercase tracking-wide text-brand-600">{eyebrow}</p>}
          <h1 className="mt-2 text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl">{title}</h1>
          {children && <div className="mt-4 text-lg leading-relaxed text-slate-600">{children}</div>}
        </div>
      </div>
    </div>
  );
}

/** A rounded tinted square holding an icon. */
export function IconBadge({ icon, className }: { icon: IconName; className?: string }) {
  return (
    <span
      aria-hidden
      className={cx(
        "inline-flex h-11 w-11 shrink-0 items-center justify-center rounded-xl bg-brand-100 text-brand-700",
        className,
      )}
    >
      <Icon name={icon} className="h-6 w-6" />
    </span>
  );
}

/** Long-form text (policies) with consistent heading and paragraph styles. */
export function Prose({ children }: { children: ReactNode }) {
  return (
    <div
      className={cx(
        "space-y-4 text-slate-700 leading-relaxed",
        "[&_h2]:mt-10 [&_h2]:scroll-mt-24 [&_h2]:text-xl [&_h2]:font-semibold [&_h2]:text-slate-900",
        "[&_h3]:mt-6 [&_h3]:font-semibold [&_h3]:text-slate-900",
        "[&_ul]:list-disc [&_ul]:space-y-2 [&_ul]:pl-6",
        "[&_a]:font-medium [&_a]:text-brand-700 [&_a:hover]:underline",
      )}
    >
      {children}
    </div>
  );
}

/** Privacy and Terms: the legal intro, a sticky table of contents on wide screens, then the text. */
export function PolicyPage({
  title,
  intro,
  sections,
  children,
}: {
  title: string;
  intro: string;
  sections: { id: string; title: string }[];
  children: ReactNode;
}) {
  return (
    <>
      <PageIntro eyebrow="Legal" title={title}>
        <p>{intro}</p>
        <p className="mt-2 text-sm text-slate-500">Last updated: November 2026</p>
      </PageIntro>
      <div className="mx-auto grid max-w-6xl gap-10 px-4 py-12 lg:grid-cols-[14rem_1fr]">
        <nav aria-label="Sections" className="hidden lg:block">
          <ul className="sticky top-24 space-y-2 text-sm">
            {sections.map((s) => (
              <li key={s.id}>
                <a href={`#${s.id}`} className="text-slate-600 hover:text-brand-700">
                  {s.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <article className="max-w-3xl">
          <Prose>{children}</Prose>
        </article>
      </div>
    </>
  );
}
