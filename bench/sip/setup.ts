/**
 * What the SIP drill and bench share: the platform in this process with its SIP gateway on a port of their own
 * (bench/voice/platform.ts, on the hosted speech fakes, so the gateway's work is what they measure), trunks and
 * assistants made through the API, baresip far ends on loopback addresses of their own, the gateway's process
 * (its id and CPU time), and the gateway's one log line per call.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePortPair, startBaresip, writeLineWav, type Baresip, type BaresipOptions } from '../../test/support/baresip.ts';
import { createTestAssistant } from '../../test/support/assistants.ts';
import { apiRequest } from '../../test/support/http.ts';
import { freePort } from '../../test/support/ports.ts';
import { spokenPcm } from '../../test/support/speech.ts';
import { startBenchPlatform, type BenchPlatform } from '../voice/platform.ts';

/** The gateway's line at the end of each call's media (src/sip/gateway/inbound.go). */
export interface CallMediaLine {
  callSid: string;
  cause: string;
  seconds: number;
  packetsIn: number;
  framesOut: number;
  firstSoundMs: number;
  sendJitterP99Us: number;
  peerJitterMaxMs: number;
}

export interface SipBench {
  platform: BenchPlatform;
  /** The gateway's SIP port, which trunks are dialed on too (every far end has an address of its own). */
  port: number;
  /** Every "a SIP call's media ended" line so far. */
  mediaLines: CallMediaLine[];
  trunk(body: Record<string, unknown>): Promise<number>;
  assistant(settings: Record<string, unknown>): Promise<number>;
  farEnd(options: Omit<BaresipOptions, 'host' | 'port'>): Promise<Baresip>;
  /** A WAV of silences (ms) and spoken words, in turn. */
  wav(name: string, parts: (number | string)[]): Promise<string>;
  close(): Promise<void>;
}

export async function startSipBench(options: { reply: string; heard: string }): Promise<SipBench> {
  const [port, controlPort] = [await freePortPair(), await freePort()];
  const rtpBase = 30000 + 2 * Math.floor(Math.random() * 2000);
  const mediaLines: CallMediaLine[] = [];
  let partial = '';
  const log = {
    write(chunk: string) {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.includes('a SIP call\'s media ended')) continue;
        try {
          mediaLines.push(JSON.parse(line) as CallMediaLine);
        } catch {
          // not a line of ours
        }
      }
    },
  };
  const platform = await startBenchPlatform({
    delays: { llmMs: 200, sttResultMs: 100, ttsFirstByteMs: 150, reply: options.reply, heard: options.heard },
    env: (urls) => ({
      STT_PROVIDER: 'deepgram', DEEPGRAM_URL: urls.deepgram, DEEPGRAM_API_KEY: urls.deepgramKey,
      TTS_PROVIDER: 'openai', OPENAI_TTS_BASE_URL: urls.openaiSpeech, OPENAI_TTS_API_KEY: urls.openaiKey,
      MEDIA_MAX_CALLS: '1000',
      LOG_LEVEL: 'info',
      SIP_HOST: '127.0.0.1', SIP_PORT: String(port), SIP_TRUNK_PORT: String(port), SIP_PUBLIC_HOST: '127.0.0.1',
      SIP_CONTROL_PORT: String(controlPort), RTP_PORT_MIN: String(rtpBase), RTP_PORT_MAX: String(rtpBase + 400),
    }),
    voice: (voice) => /\(OpenAI\)$/.test(voice.name),
    log,
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-sip-bench-'));
  const farEnds: Baresip[] = [];
  let address = 0;
  const { apiUrl, token } = platform;
  const post = async (route: string, body: Record<string, unknown>) => {
    const answer = await fetch(`${apiUrl}/api${route}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await answer.text();
    if (answer.status !== 201) throw new Error(`POST ${route}: HTTP ${answer.status} ${text}`);
    return (JSON.parse(text) as { data: { id: number } }).data.id;
  };
  // The assistants of the bench speak with the voice the bench platform chose (the speech fake's), and their
  // owner's plan sets no limit on calls at once: the gateway is what is measured.
  const knex = platform.running.database.knex;
  const { voiceId, userId } = await knex('assistants').where({ id: platform.assistantId }).first<{ voiceId: number; userId: number }>('voiceId', 'userId');
  await knex('plans').insert({ id: `sip-bench-${userId}`, name: 'SIP bench', maxCallsInParallel: null });
  await knex('users').where({ id: userId }).update({ planId: `sip-bench-${userId}` });
  return {
    platform,
    port,
    mediaLines,
    trunk: (body) => post('/user/phone-numbers/sip-trunks', {
      sip_trunk_type: 'number', sip_username: 'carrier', sip_password: 'bench-secret', country_code: 'DE', inbound_authorization_type: 'ip', ...body,
    }),
    assistant: async (settings) => (await createTestAssistant({ request: apiRequest(apiUrl) }, { token }, {
      voice_id: voiceId, initial_message: 'Hello, this is Parley. How can I help you today?', max_call_duration: 300, ...settings,
    })).id,
    async farEnd(farEndOptions) {
      // 127.0.1.x: clear of the 127.0.0.x addresses the tests use, one per far end.
      const started = await startBaresip({ host: `127.0.1.${++address}`, port, ...farEndOptions });
      farEnds.push(started);
      return started;
    },
    async wav(name, parts) {
      const pieces = await Promise.all(parts.map((part) => (typeof part === 'number' ? Promise.resolve(new Int16Array(16 * part)) : spokenPcm(part))));
      const all = new Int16Array(pieces.reduce((n, piece) => n + piece.length, 0));
      let offset = 0;
      for (const piece of pieces) {
        all.set(piece, offset);
        offset += piece.length;
      }
      const file = path.join(dir, `${name}.wav`);
      writeLineWav(file, all);
      return file;
    },
    async close() {
      await Promise.all(farEnds.map((farEnd) => farEnd.close()));
      await platform.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The SIP gateway's process: the child of this process running `parley-sip`. */
export function gatewayPid(): number | undefined {
  const children = fs.readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  return children.find((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'parley-sip';
    } catch {
      return false;
    }
  });
}

/** CPU seconds (user and system) a process has used. */
export function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of stat, counted from 1, in clock ticks of 1/100 s.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
