import { twilioSignatureOf } from '../../lib/twilio-signature.ts';

/** How long the sandbox carrier waits for Parley to answer one of its webhooks, as Twilio gives up after 15 s. */
const WEBHOOK_TIMEOUT_MS = 15_000;

/**
 * Posts a webhook to Parley as Twilio does: a form, signed with `X-Twilio-Signature` over the URL and the form.
 * `reach` says where a request to the URL goes (a tunnel to Parley's public URL); the URL itself unless given.
 */
export function postSigned(token: string, url: string, form: URLSearchParams, reach: (url: string) => string = (given) => given): Promise<Response> {
  return fetch(reach(url), {
    method: 'POST',
    body: form.toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioSignatureOf(token, url, form), 'user-agent': 'ParleySandboxCarrier/1.0' },
    signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
  });
}
