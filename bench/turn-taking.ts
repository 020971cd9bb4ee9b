/**
 * Turn-taking on the offline stack (Silero VAD, Whisper tiny.en, Smart Turn, the Piper voice; the language model
 * faked), with two sets of callers' lines, each said by espeak-ng and by the Piper voice:
 * - mid-thought: a pause of 0.5-0.9 s inside a thought (a number read in groups, a hesitation, a
 *   self-correction). A line counts as cut when the platform committed a fragment of it as a turn of its own, or
 *   sent reply audio while the caller was still saying it; a reply drafted and held at the pause, then discarded
 *   when the caller went on, does not count (the caller never heard it);
 * - short complete answers ("Sounds good."): the latency the caller felt, end of speech → first reply frame.
 * It also prints what the recognizer made of every line: the word error rate against what was said, and the
 * lines it repeated itself on or went on past.
 *
 *   npm run bench:turn-taking -- [--endpoint vad,ai] [--sensitivity 0.5] [--llm-ms 200]
 * Targets (issue 29): mid-thought pauses committed as a turn's end at most 5 %, never a reply heard while the
 * caller still talks; short answers felt p50 at most 600 ms; no repeated or invented words, WER at most 10 %.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import type { CallerLine, CallerVoice } from './voice/caller-audio.ts';
import { spokenText } from './voice/caller-audio.ts';
import { startBenchPlatform } from './voice/platform.ts';
import type { CallResult, RunReply } from './voice/protocol.ts';
import { loadVoiceSettings } from '../src/resources/assistants/voice-profile.ts';
import { cutShort, matchTurns, repeatsOrInvents, spread, wordErrors } from './voice/turns.ts';

const { values } = parseArgs({
  options: {
    endpoint: { type: 'string', default: 'vad,ai' },
    sensitivity: { type: 'string', default: '0.5' },
    'llm-ms': { type: 'string', default: '200' },
  },
});

/** Lines with a pause inside the thought, at `|`, and how long it is. */
const MID_THOUGHT: [string, number][] = [
  ['My card number is four four five six, | seven eight nine zero.', 700],
  ['I want the... | the blue one.', 800],
  ['Well, hmm, | let me think about that.', 600],
  ['My phone number is five five five, | one two three four.', 900],
  ['I would like to book a table for, | uh, four people.', 500],
  ['The address is twenty two, | no sorry, thirty two Main Street.', 700],
  ['Can you move my appointment to | next Friday afternoon?', 600],
  ['I was wondering if | you could call me back later.', 800],
];
const SHORT_ANSWERS = ['Sounds good.', 'Not today.', 'No thanks.', 'Yes.', 'That works for me.', 'Sure, go ahead.', 'Okay.', 'Maybe next week.'];
const VOICES: CallerVoice[] = ['espeak', 'piper'];

const platform = await startBenchPlatform({
  delays: { llmMs: Number(values['llm-ms']), llmPieceMs: 15, sttResultMs: 0, ttsFirstByteMs: 0, reply: 'Okay.', heard: '' },
  env: () => ({ STT_PROVIDER: 'local', TTS_PROVIDER: 'local' }),
  voice: (voice) => /piper/i.test(voice.name),
  assistant: { endpoint_type: 'vad', endpoint_sensitivity: Number(values.sensitivity) },
});

interface SetResult {
  endpoint: string;
  voice: CallerVoice;
  set: 'mid-thought' | 'short';
  lines: CallerLine[];
  result: CallResult;
}

async function call(assistantId: number, lines: CallerLine[]): Promise<CallResult> {
  const { results } = await platform.ask<RunReply>({
    type: 'run',
    plan: { apiUrl: platform.apiUrl, token: platform.token, assistantId, calls: 1, rampMs: 0, durationMs: 20 * 60_000, maxTurns: lines.length, pauseMs: [700, 700], lines, settleMs: 2500 },
  });
  const [result] = results;
  if (!result || result.error) throw new Error(`call ${result?.callId}: ${result?.error}`);
  return result;
}

try {
  const sets: SetResult[] = [];
  // A first call starts Whisper's workers, the voice and the turn model; it is not measured.
  await call(platform.assistantId, [{ text: 'Hello there.', voice: 'espeak' }]);
  for (const endpoint of values.endpoint.split(',')) {
    const assistantId = await platform.addAssistant({ endpoint_type: endpoint, endpoint_sensitivity: Number(values.sensitivity) });
    for (const voice of VOICES) {
      const midThought = MID_THOUGHT.map(([text, pauseMs]) => ({ text, voice, pauseMs }));
      sets.push({ endpoint, voice, set: 'mid-thought', lines: midThought, result: await call(assistantId, midThought) });
      const short = SHORT_ANSWERS.map((text) => ({ text, voice }));
      sets.push({ endpoint, voice, set: 'short', lines: short, result: await call(assistantId, short) });
    }
  }

  console.log(`offline stack, endpoint sensitivity ${values.sensitivity}; model first piece after ${values['llm-ms']} ms\n`);
  console.log('endpoint | voice  | mid-thought cut | reply while talking | short answers felt p50 / p95 | WER | repeated or invented');
  const all: { said: string; heard: string }[] = [];
  for (const endpoint of values.endpoint.split(',')) {
    const rows = sets.filter((set) => set.endpoint === endpoint);
    for (const voice of [...VOICES, 'both' as const]) {
      const mine = rows.filter((set) => voice === 'both' || set.voice === voice);
      const mid = mine.filter((set) => set.set === 'mid-thought').flatMap((set) => set.result.turns);
      const short = mine.filter((set) => set.set === 'short').flatMap((set) => set.result.turns);
      const heard = mine.flatMap((set) => set.result.turns.map((turn) => ({ said: spokenText(set.lines[turn.line]!), heard: turn.userTurns.join(' ') })));
      if (voice !== 'both') all.push(...heard);
      const errors = heard.map((line) => wordErrors(line.said, line.heard));
      const wer = errors.reduce((sum, line) => sum + line.errors, 0) / Math.max(1, errors.reduce((sum, line) => sum + line.words, 0));
      console.log([
        endpoint.padEnd(8), voice.padEnd(6), `${mid.filter(cutShort).length} of ${mid.length}`.padStart(15),
        `${mid.filter((turn) => turn.replyWhileSpeaking > 0).length} of ${mid.length}`.padStart(19),
        spread(short.flatMap((turn) => (turn.feltMs === undefined ? [] : [turn.feltMs]))).padStart(28),
        `${(wer * 100).toFixed(1)} %`.padStart(4), `${heard.filter((line) => repeatsOrInvents(line.said, line.heard)).length} of ${heard.length}`.padStart(20),
      ].join(' | '));
    }
  }
  console.log('\nshort answers, stored stage p50s (decision: end of speech → turn committed; stt: → final words):');
  for (const endpoint of values.endpoint.split(',')) {
    const shortSets = sets.filter((set) => set.endpoint === endpoint && set.set === 'short');
    const settings = await loadVoiceSettings(platform.running.database.knex, { id: platform.assistantId });
    if (!settings) throw new Error('the assistant has no voice settings');
    const { turns } = matchTurns(shortSets.map((set) => set.result), await platform.turnsOf(shortSets.map((set) => set.result.callId)), settings);
    const p50 = (pick: (metrics: (typeof turns)[number]['metrics']) => number | undefined) => spread(turns.map((turn) => pick(turn.metrics) ?? Number.NaN)).split(' / ')[0];
    console.log(`  ${endpoint}: felt ${spread(turns.map((turn) => turn.feltMs)).split(' / ')[0]} ms; decision ${p50((m) => m.end_of_turn_decision_ms)}, stt ${p50((m) => m.stt_final_delay_ms)}, ` +
      `llm ${p50((m) => m.llm_first_token_ms)}, tts ${p50((m) => m.tts_first_byte_ms)}, turn model score ${p50((m) => (m.turn_model_score === undefined ? undefined : m.turn_model_score * 1000))} (‰); ` +
      `drafted ${turns.filter((turn) => turn.metrics.preemptive).length} of ${turns.length}`);
  }
  console.log('\nlines cut or misheard (endpoint, voice: said → the turns committed):');
  for (const set of sets) {
    for (const turn of set.result.turns) {
      const said = spokenText(set.lines[turn.line]!);
      const heard = turn.userTurns.join(' | ');
      if (cutShort(turn) || wordErrors(said, heard).errors > 0 || repeatsOrInvents(said, heard)) {
        console.log(`  ${set.endpoint}, ${set.voice}: "${said}" → ${turn.userTurns.map((text) => `"${text}"`).join(', ') || '(nothing)'}${turn.replyWhileSpeaking ? `; ${turn.replyWhileSpeaking} reply frames while talking` : ''}`);
      }
    }
  }
  console.log(`\nmachine load average ${os.loadavg()[0]!.toFixed(1)} on ${os.availableParallelism()} cores`);
} finally {
  await platform.close();
}
