import { api, ok } from '../api/client.ts';
import { Field, Form } from '../components/form.tsx';
import { PageHeader } from '../components/page.tsx';
import { BASE, navigate } from '../router.ts';
import { saveSession } from '../session.ts';
import { textOf } from '../components/collect.ts';

/**
 * Sign in, at whatever address was asked for: once signed in, that page shows (a session kept only in the tab
 * may ask again after the tab was closed, and then returns to the same page).
 */
export function SignIn() {
  const submit = async (body: Record<string, unknown>) => {
    const answer = await ok(api.POST('/auth/login', { body: { email: textOf(body.email), password: textOf(body.password), token_name: 'Parley console' } }));
    saveSession({ token: answer.token, name: answer.user.name, email: answer.user.email });
  };
  return (
    <main id="main" class="auth">
      <p class="brand">Parley</p>
      <PageHeader title="Sign in" />
      <Form onSubmit={submit} submitLabel="Sign in" label="Sign in">
        <Field name="email" label="Email" type="email" autoComplete="username" required />
        <Field name="password" label="Password" type="password" autoComplete="current-password" required />
      </Form>
      <p>New to Parley? <a href={`${BASE}/register`}>Create an account</a>.</p>
    </main>
  );
}

export function Register() {
  const submit = async (body: Record<string, unknown>) => {
    const timezone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    const answer = await ok(api.POST('/auth/register', {
      body: { name: textOf(body.name), email: textOf(body.email), password: textOf(body.password), ...(timezone ? { timezone } : {}) },
    }));
    saveSession({ token: answer.token, name: answer.user.name, email: answer.user.email });
    navigate(`${BASE}/overview`, { replace: true });
  };
  return (
    <main id="main" class="auth">
      <p class="brand">Parley</p>
      <PageHeader title="Create an account" />
      <Form onSubmit={submit} submitLabel="Create account" label="Create an account">
        <Field name="name" label="Name" autoComplete="name" required />
        <Field name="email" label="Email" type="email" autoComplete="username" required />
        <Field name="password" label="Password" type="password" autoComplete="new-password" hint="At least 8 characters." required />
      </Form>
      <p>Have an account? <a href={`${BASE}`}>Sign in</a>.</p>
    </main>
  );
}
