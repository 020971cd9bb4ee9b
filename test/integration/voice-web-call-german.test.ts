import { describe, expect, it, vi } from 'vitest';
import { multilingualSpeechInstalled } from '../../src/providers/speech-install.ts';
import { type FakeTurn, lastUserText } from '../fakes/llm-server.ts';
import { speechDir, speechInstalled, speechSkipReason, spokenPcm } from '../support/speech.ts';
import { transcriptLines, webCallTestbed } from '../support/web-call.ts';

const ready = speechInstalled && multilingualSpeechInstalled(speechDir);

/**
 * A German assistant on the embedded default: the caller speaks German (espeak-ng's German voice), Whisper
 * base hears it in German, the model's German reply is spoken by the assistant's German voice with its date,
 * time and price read as German says them: the German voice is asked for the words, and the caller is played them.
 */
describe.skipIf(!ready)(`a German web call on the offline speech stack${ready ? '' : ` (${speechSkipReason}, with Whisper base)`}`, () => {
  const reply = 'Gerne. Ihre Bestellung kommt am 12.03.2026 um 14:30 Uhr.';
  const bed = webCallTestbed((request): FakeTurn => (/bestellung/i.test(lastUserText(request)) ? { reply } : { reply: 'Wie bitte?' }));

  it('hears the caller in German and answers in German, dates and times read the German way', async () => {
    const knex = bed.platform.database.knex;
    const espeak = bed.platform.providers.tts.forCode('espeak')!;
    const synthesize = vi.spyOn(espeak, 'synthesize');
    const [german, voice] = await Promise.all([
      knex('languages').where({ iso2: 'de' }).first('id'),
      knex('voices').where({ name: 'German Male (eSpeak)' }).first('id'),
    ]);
    const { caller } = await bed.call(await bed.assistant({
      language_id: Number(german.id), voice_id: Number(voice.id), initial_message: 'Guten Tag, hier ist Parley.', system_prompt: 'Du hilfst bei Bestellungen.',
    }));
    await caller.waitFor(() => transcriptLines(caller).length === 1, 30_000, 'the greeting');

    await caller.say(await spokenPcm('Guten Tag, ich brauche Hilfe mit meiner Bestellung.', { voice: 'de', silenceMs: 200 }));
    const replyFrom = caller.played.length;
    // The assistant's turn is in the live transcript once it has been played to its end.
    await caller.waitFor(() => transcriptLines(caller).length === 3, 60_000, `the reply after ${JSON.stringify(transcriptLines(caller))}`);
    caller.close();
    await caller.closed;

    expect(transcriptLines(caller)).toEqual(['assistant: Guten Tag, hier ist Parley.', expect.stringMatching(/^user: .*bestellung/i), `assistant: ${reply}`]);
    expect(lastUserText(bed.llm.requests.at(-1)!)).toMatch(/hilfe.*bestellung/i);

    // The German voice was asked for the date and time as words ("zwölften März …", not "zwölf Punkt null drei"),
    // and the caller was played them. Whisper base is not asked to read it back: on espeak-ng's German it writes
    // anything from "kommt am 12. märz" to a loop of words never said (npm run bench:speech-local).
    const spoken = synthesize.mock.calls.map(([request]) => request).filter((request) => request.text !== 'Guten Tag, hier ist Parley.');
    expect(spoken.map((request) => request.text).join(' ')).toBe('Gerne. Ihre Bestellung kommt am zwölften März zweitausendsechsundzwanzig um vierzehn Uhr dreißig.');
    expect(new Set(spoken.map((request) => `${request.language} ${request.voice}`))).toEqual(new Set([`de-DE ${spoken[0]!.voice}`]));
    expect(spoken[0]!.voice).toMatch(/^de/);
    const played = caller.played.slice(replyFrom);
    expect(played.length * 20, 'milliseconds of the reply played').toBeGreaterThan(3000);
  }, 120_000);
});
