import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { takeInPageNavigation } from '../router.ts';

/**
 * The page's one `<h1>`, which also names the tab; after a link inside the console it takes the focus, so a
 * screen reader announces the new page and the keyboard starts from it.
 */
export function PageHeader({ title, children, lead }: { title: string; children?: ComponentChildren; lead?: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Parley`;
    if (takeInPageNavigation()) heading.current?.focus();
  }, [title]);
  return (
    <header class="page-head">
      <div>
        <h1 ref={heading} tabIndex={-1}>{title}</h1>
        {lead && <p class="lead">{lead}</p>}
      </div>
      {children && <div class="page-actions">{children}</div>}
    </header>
  );
}

/** What a part of the page is doing: loading, or why it failed (with the API's message). */
export function Status({ loading, error, retry }: { loading?: boolean; error?: Error | undefined; retry?: () => void }) {
  if (error) {
    return (
      <div class="notice error" role="alert">
        <p>{error.message}</p>
        {retry && <button type="button" onClick={retry}>Try again</button>}
      </div>
    );
  }
  if (loading) return <p class="loading" role="status">Loading…</p>;
  return null;
}

export function Badge({ value, tone }: { value: string; tone?: string }) {
  return <span class={`badge ${tone ?? toneOf(value)}`}>{value}</span>;
}

function toneOf(value: string): string {
  if (/^(active|completed|delivered|succeeded|in-progress|ended|ended_by_customer|ended_by_assistant|human)$/.test(value)) return 'good';
  if (/^(failed|dead|busy|no-answer|reached-max-retries|blacklisted|stopped)$/.test(value)) return 'bad';
  if (/^(processing|pending|ringing|initiated|scheduled|rescheduled|draft|created|empty)$/.test(value)) return 'wait';
  return 'plain';
}
