import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { kokoroPhonemes } from '../../bench/speech/kokoro.ts';

const espeakInstalled = spawnSync('espeak-ng', ['--version']).status === 0;

describe.skipIf(!espeakInstalled)("the bench's Kokoro callers' phonemes (espeak-ng's IPA in Kokoro's symbols)", () => {
  it("folds espeak-ng's tied diphthongs and affricates into Kokoro's single symbols", async () => {
    const phonemes = await kokoroPhonemes('Meine Kundennummer habe ich leider nicht zur Hand', 'de');
    expect(phonemes).toContain('mˌInə'); // "ei" is a^ɪ, Kokoro's I
    expect(phonemes).toContain('ʦuː'); // "z" is t^s, Kokoro's ʦ
    expect(phonemes).not.toMatch(/[\^-]/);
  });

  it("keeps the text's punctuation where it was, and drops the opening marks Kokoro has no symbol for", async () => {
    expect(await kokoroPhonemes('¿Cuánto cuesta el envío a Madrid?', 'es')).toMatch(/^kwˈanto .* maðɾˈid\?$/);
    const french = await kokoroPhonemes('Oui, bien sûr.', 'fr-fr');
    expect(french).toMatch(/^wˈi, bjˈɛ̃ sˈyːʁ\.$/);
  });

  it('leaves out the hyphen espeak-ng writes after an unstressed word', async () => {
    expect(await kokoroPhonemes('je voudrais prendre un rendez-vous', 'fr-fr')).toMatch(/^ʒə vudʁˈɛ /);
  });
});
