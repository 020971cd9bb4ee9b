/**
 * The scripted callees the phone-call bench and drill dial, and the sandbox carrier's test API they use: each
 * call goes to a number of its own (so the carrier's calls to that number are the dials of that call), whose
 * last two digits choose the callee (src/simulators/sandbox-carrier/callees.ts).
 */
import { randomInt } from 'node:crypto';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { ScriptedCallee } from '../../src/simulators/sandbox-carrier/callees.ts';
import { sandboxCarrierToken } from '../../src/providers/telephony/sandbox.ts';
import { createSecretBox, decodeAppKey } from '../../src/lib/secrets.ts';

/** The callee kinds a mix names, and the last two digits that choose each. */
const digits: Record<ScriptedCallee, [number, number]> = {
  'person': [0, 79], 'busy': [80, 84], 'no-answer': [85, 89], 'voicemail': [90, 94], 'failed': [95, 97], 'silent-hang-up': [98, 99],
};

export const calleeKinds = Object.keys(digits) as ScriptedCallee[];

/** `person=80,busy=8,…` as weights by kind; an unknown kind or a weight that is not a number is refused. */
export function parseMix(text: string): Map<ScriptedCallee, number> {
  const mix = new Map<ScriptedCallee, number>();
  for (const part of text.split(',')) {
    const [kind, weight] = part.split('=');
    if (!calleeKinds.includes(kind as ScriptedCallee) || !(Number(weight) >= 0)) {
      throw new Error(`--mix: "${part}" is not <kind>=<weight>; the kinds are ${calleeKinds.join(', ')}`);
    }
    mix.set(kind as ScriptedCallee, Number(weight));
  }
  return mix;
}

/** `count` callee kinds in the mix's proportions (largest remainders), shuffled. */
export function drawCallees(mix: Map<ScriptedCallee, number>, count: number): ScriptedCallee[] {
  const total = [...mix.values()].reduce((sum, weight) => sum + weight, 0);
  if (total <= 0) throw new Error('--mix: the weights add up to nothing');
  const shares = [...mix].map(([kind, weight]) => ({ kind, exact: (weight / total) * count }));
  const counts = shares.map((share) => ({ ...share, whole: Math.floor(share.exact) }));
  let left = count - counts.reduce((sum, share) => sum + share.whole, 0);
  for (const share of [...counts].sort((a, b) => (b.exact - b.whole) - (a.exact - a.whole))) {
    if (left-- <= 0) break;
    share.whole++;
  }
  const kinds = counts.flatMap((share) => Array<ScriptedCallee>(share.whole).fill(share.kind));
  for (let i = kinds.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [kinds[i], kinds[j]] = [kinds[j]!, kinds[i]!];
  }
  return kinds;
}

/** A San Francisco number of its own for the `sequence`-th call (below 10 000), ending in digits that choose `kind`. */
export function calleeNumber(sequence: number, kind: ScriptedCallee): string {
  const [low, high] = digits[kind];
  const number = `+14152${String(sequence).padStart(4, '0')}${String(low + randomInt(high - low + 1)).padStart(2, '0')}`;
  if (!parsePhoneNumberFromString(number)?.isValid()) throw new Error(`${number} is not a valid number`);
  return number;
}

/** What the sandbox carrier saw of a call (its `GET /api/sandbox/carrier/calls` items); times in ms since the epoch. */
export interface CarrierCall {
  sid: string;
  callee: ScriptedCallee;
  status: string;
  startedAt: number;
  answeredAt?: number;
  /** When the callee first heard sound from Parley. */
  firstSoundAt?: number;
  endedAt?: number;
}

/** The sandbox carrier's test API, with the carrier's key derived from the deployment's app key. */
export function sandboxCarrierApi(baseUrl: string, appKey: string) {
  const key = decodeAppKey(appKey);
  if (!key) throw new Error('APP_KEY is not a key');
  const headers = { 'authorization': `Bearer ${sandboxCarrierToken(createSecretBox(key))}`, 'content-type': 'application/json' };
  const api = `${baseUrl}/api/sandbox/carrier`;
  return {
    /** The lines a number's person callee says, one after each assistant turn. */
    async script(phoneNumber: string, lines: string[]): Promise<void> {
      const answer = await fetch(`${api}/scripts`, { method: 'POST', headers, body: JSON.stringify({ phone_number: phoneNumber, lines }) });
      if (answer.status !== 200) throw new Error(`registering a script: HTTP ${answer.status} ${await answer.text()}`);
    },
    /** Every call the carrier placed to `phoneNumber`. */
    async callsTo(phoneNumber: string): Promise<CarrierCall[]> {
      const answer = await fetch(`${api}/calls?to=${encodeURIComponent(phoneNumber)}`, { headers });
      if (answer.status !== 200) throw new Error(`reading the carrier's calls: HTTP ${answer.status} ${await answer.text()}`);
      return ((await answer.json()) as { data: CarrierCall[] }).data;
    },
  };
}
