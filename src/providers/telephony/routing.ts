import type { NumberRouting } from './types.ts';

/** Parley's routes for what a carrier sends about its numbers: calls, their status changes and messages. */
export function callbackPaths(carrier: 'sandbox' | 'twilio') {
  const base = `/api/telephony/${carrier}`;
  return { voice: `${base}/voice`, status: `${base}/status`, messages: `${base}/messages` } as const;
}

/** A carrier's numbers pointed at Parley, at its public URL. */
export function callbackRouting(publicUrl: string, carrier: 'sandbox' | 'twilio'): NumberRouting {
  const paths = callbackPaths(carrier);
  return { voiceUrl: `${publicUrl}${paths.voice}`, statusCallbackUrl: `${publicUrl}${paths.status}`, smsUrl: `${publicUrl}${paths.messages}` };
}
