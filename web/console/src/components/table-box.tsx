import type { ComponentChildren } from 'preact';

/**
 * A table that scrolls sideways when the screen is narrower than it: a named region the keyboard can focus, so
 * the arrow keys scroll it too.
 */
export function TableBox({ label, children }: { label: string; children: ComponentChildren }) {
  return <div class="table-wrap" role="region" aria-label={label} tabIndex={0}>{children}</div>;
}
