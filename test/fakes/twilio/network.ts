import pino from 'pino';
import { SandboxCarrier } from '../../../src/simulators/sandbox-carrier/carrier.ts';
import type { SimulatedCall } from '../../../src/simulators/sandbox-carrier/simulated-call.ts';

export interface TwilioNetwork {
  /** The sandbox carrier's simulator, playing the calls as the fake's account. */
  carrier: SandboxCarrier;
  /** Webhooks to URLs under `publicUrl` are delivered under `localUrl` instead, signed over the public URL as given. */
  tunnel(publicUrl: string, localUrl: string): void;
}

/**
 * The phone network behind the fake Twilio: the sandbox carrier's simulator (its scripted callees, Media Streams
 * and signed webhooks), run as the fake's account and token, so a call the fake accepts is rung, answered and
 * talked through as Twilio would. Parley's public URL is not this machine's: a tunnel, as ngrok is to a
 * developer's Twilio, carries the webhooks to the platform under test. `observe` is told each change of a call.
 */
export function twilioNetwork(options: { accountSid: string; authToken: string; observe: (call: SimulatedCall) => void }): TwilioNetwork {
  const tunnels = new Map<string, string>();
  const reach = (url: string) => {
    for (const [publicUrl, localUrl] of tunnels) if (url.startsWith(publicUrl)) return localUrl + url.slice(publicUrl.length);
    return url;
  };
  const carrier = new SandboxCarrier({
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    token: () => options.authToken,
    accountSid: options.accountSid,
    // Twilio routes a number's calls by its own configuration: the fake never falls back to a Parley of its own.
    parleyUrl: () => '',
    // No softphone pages dial through the fake.
    owned: () => Promise.resolve(true),
    reach,
    observe: options.observe,
  });
  return { carrier, tunnel: (publicUrl, localUrl) => void tunnels.set(publicUrl, localUrl) };
}
