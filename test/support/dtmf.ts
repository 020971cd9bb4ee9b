/**
 * A DTMF receiver for tests: Goertzel filters at the eight ITU-T Q.23 frequencies decide which key a block of
 * audio holds, and a run of blocks is read as the keys pressed in it.
 */
const ROWS = [697, 770, 852, 941];
const COLUMNS = [1209, 1336, 1477, 1633];
const LAYOUT = ['123A', '456B', '789C', '*0#D'];

/** The power of one frequency in a block (Goertzel), normalised by the block's length. */
export function goertzel(block: Int16Array, frequency: number, rate: number): number {
  const coefficient = 2 * Math.cos((2 * Math.PI * frequency) / rate);
  let previous = 0;
  let beforePrevious = 0;
  for (const sample of block) {
    const current = sample + coefficient * previous - beforePrevious;
    beforePrevious = previous;
    previous = current;
  }
  return (previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious) / (block.length * block.length);
}

/** The key a block holds, as a receiver decides it: the strongest row and column, each well above the rest; none otherwise. */
export function detectKey(block: Int16Array, rate: number): string | undefined {
  const strongest = (frequencies: number[]) => {
    const powers = frequencies.map((frequency) => goertzel(block, frequency, rate));
    const best = Math.max(...powers);
    return powers.every((power) => power === best || power * 20 < best) && best > 1000 ? frequencies[powers.indexOf(best)] : undefined;
  };
  const row = strongest(ROWS);
  const column = strongest(COLUMNS);
  if (row === undefined || column === undefined) return undefined;
  // Speech or a tone at another pitch has energy outside the pair too; a key has almost none.
  const total = block.reduce((sum, sample) => sum + sample * sample, 0) / block.length;
  const pair = 2 * (goertzel(block, row, rate) + goertzel(block, column, rate));
  if (pair < 0.5 * total) return undefined;
  return LAYOUT[ROWS.indexOf(row)]![COLUMNS.indexOf(column)];
}

/** The keys pressed in `samples`, read in 40 ms blocks every 20 ms: a key held over consecutive blocks counts once. */
export function decodeKeys(samples: Int16Array, rate: number): string {
  const block = (rate * 40) / 1000;
  let keys = '';
  let held: string | undefined;
  for (let offset = 0; offset + block <= samples.length; offset += block / 2) {
    const key = detectKey(samples.subarray(offset, offset + block), rate);
    if (key !== undefined && key !== held) keys += key;
    held = key;
  }
  return keys;
}
