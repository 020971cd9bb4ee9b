import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import { BASE, useLocation } from '../router.ts';
import { readSession, saveSession } from '../session.ts';

const sections: [string, string][] = [
  ['overview', 'Overview'],
  ['assistants', 'Assistants'],
  ['tools', 'Tools'],
  ['calls', 'Calls'],
  ['campaigns', 'Campaigns'],
  ['numbers', 'Phone numbers'],
  ['knowledge', 'Knowledge'],
  ['webhooks', 'Webhooks'],
  ['keys', 'API keys'],
  ['billing', 'Billing'],
];

async function signOut(): Promise<void> {
  // The token is revoked on the server too; the page forgets it whatever the answer.
  await api.POST('/auth/logout').catch(() => undefined);
  saveSession(null);
}

/** The console's frame: a skip link, the navigation (a menu on a phone), who is signed in, and the page. */
export function Layout({ children, admin }: { children: ComponentChildren; admin: boolean }) {
  const { path } = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const session = readSession();
  const links = admin ? [...sections, ['users', 'Users'] as [string, string]] : sections;
  return (
    <div class="shell">
      <a class="skip" href="#main">Skip to the page</a>
      <header class="top">
        <a class="brand" href={`${BASE}/overview`}>Parley</a>
        <button type="button" class="menu-toggle" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen(!menuOpen)}>Menu</button>
        <div class="who">
          <span title={session?.email}>{session?.name || session?.email}</span>
          <button type="button" onClick={() => void signOut()}>Sign out</button>
        </div>
      </header>
      <nav id="nav" class={menuOpen ? 'open' : ''} aria-label="Console">
        <ul>
          {links.map(([slug, label]) => {
            const href = `${BASE}/${slug}`;
            const current = path === href || path.startsWith(`${href}/`);
            return (
              <li key={slug}>
                <a href={href} aria-current={current ? 'page' : undefined} onClick={() => setMenuOpen(false)}>{label}</a>
              </li>
            );
          })}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>{children}</main>
    </div>
  );
}
