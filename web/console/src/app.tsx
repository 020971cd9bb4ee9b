import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api/client.ts';
import { Layout } from './components/layout.tsx';
import { AssistantEditor } from './pages/assistant-editor.tsx';
import { Assistants } from './pages/assistants.tsx';
import { Billing } from './pages/billing.tsx';
import { CallPage } from './pages/call.tsx';
import { Calls } from './pages/calls.tsx';
import { CampaignPage } from './pages/campaign.tsx';
import { Campaigns } from './pages/campaigns.tsx';
import { KeysPage } from './pages/keys.tsx';
import { KnowledgeBasePage } from './pages/knowledge-base.tsx';
import { Knowledge } from './pages/knowledge.tsx';
import { NotFound } from './pages/not-found.tsx';
import { Numbers } from './pages/numbers.tsx';
import { Overview } from './pages/overview.tsx';
import { Register, SignIn } from './pages/sign-in.tsx';
import { Folders } from './pages/folders.tsx';
import { ToolEditor, Tools } from './pages/tools.tsx';
import { Users } from './pages/users.tsx';
import { Webhooks } from './pages/webhooks.tsx';
import { BASE, match, navigate, useLocation } from './router.ts';
import { onSessionChange, readSession, saveSession } from './session.ts';

type Params = Record<string, string>;

/** Every page of the console, by its path. */
const pages: [string, (params: Params) => JSX.Element][] = [
  [`${BASE}/overview`, () => <Overview />],
  [`${BASE}/assistants`, () => <Assistants />],
  [`${BASE}/assistants/new`, () => <AssistantEditor />],
  [`${BASE}/assistants/:id`, ({ id }) => <AssistantEditor key={id} id={Number(id)} />],
  [`${BASE}/folders`, () => <Folders />],
  [`${BASE}/tools`, () => <Tools />],
  [`${BASE}/tools/new`, () => <ToolEditor />],
  [`${BASE}/tools/:id`, ({ id }) => <ToolEditor key={id} id={Number(id)} />],
  [`${BASE}/calls`, () => <Calls />],
  [`${BASE}/calls/:id`, ({ id }) => <CallPage key={id} id={Number(id)} />],
  [`${BASE}/campaigns`, () => <Campaigns />],
  [`${BASE}/campaigns/:id`, ({ id }) => <CampaignPage key={id} id={Number(id)} />],
  [`${BASE}/numbers`, () => <Numbers />],
  [`${BASE}/billing`, () => <Billing />],
  [`${BASE}/knowledge`, () => <Knowledge />],
  [`${BASE}/knowledge/:id`, ({ id }) => <KnowledgeBasePage key={id} id={Number(id)} />],
  [`${BASE}/webhooks`, () => <Webhooks />],
  [`${BASE}/keys`, () => <KeysPage />],
  [`${BASE}/users`, () => <Users />],
];

function useSignedIn(): boolean {
  const [signedIn, setSignedIn] = useState(readSession() !== null);
  useEffect(() => onSessionChange(() => setSignedIn(readSession() !== null)), []);
  return signedIn;
}

/**
 * Whether the user is a white-label admin, who also sees the users of their platform: asked once per session
 * (a 403 says no) and kept with it.
 */
function useWhiteLabelAdmin(signedIn: boolean): boolean {
  const [admin, setAdmin] = useState(readSession()?.admin ?? false);
  useEffect(() => {
    const session = readSession();
    if (!signedIn || !session) return setAdmin(false);
    if (session.admin !== undefined) return setAdmin(session.admin);
    api.GET('/white-label/users').then(({ response }) => {
      const current = readSession();
      if (current?.token === session.token) saveSession({ ...current, admin: response.ok });
      setAdmin(response.ok);
    }, () => undefined);
    return undefined;
  }, [signedIn]);
  return admin;
}

export function App() {
  const { path } = useLocation();
  const signedIn = useSignedIn();
  const admin = useWhiteLabelAdmin(signedIn);

  useEffect(() => {
    if (signedIn && (path === BASE || path === `${BASE}/register`)) navigate(`${BASE}/overview`, { replace: true });
  }, [signedIn, path]);

  if (!signedIn) return path === `${BASE}/register` ? <Register /> : <SignIn />;
  for (const [pattern, page] of pages) {
    const params = match(pattern, path);
    if (params) return <Layout admin={admin}>{page(params)}</Layout>;
  }
  if (path === BASE || path === `${BASE}/register`) return null;
  return <Layout admin={admin}><NotFound /></Layout>;
}
