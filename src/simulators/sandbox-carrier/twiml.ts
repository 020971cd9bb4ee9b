/**
 * The little of TwiML the sandbox carrier reads from Parley's answers: which verb to follow, and the words a
 * `<Say>` speaks. Parley writes its TwiML itself, so a few patterns read it; this is not an XML parser.
 */
export type TwimlAnswer = { verb: 'stream'; stream: { url: string; parameters: Record<string, string> } } | { verb: 'say' | 'reject' | 'none' };

const unescape = (text: string) => text.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** The words of a TwiML answer's `<Say>` verbs, joined. */
export function sayText(xml: string): string {
  return [...xml.matchAll(/<Say\b[^>]*>([\s\S]*?)<\/Say>/g)].map(([, text]) => unescape(text!).trim()).join(' ');
}

/** The verbs of Parley's TwiML the sandbox carrier follows: `<Connect><Stream>`, `<Say>`, `<Reject>`. */
export function readTwiml(xml: string): TwimlAnswer {
  const stream = /<Connect>\s*<Stream\s+url="([^"]*)"\s*>([\s\S]*?)<\/Stream>/.exec(xml);
  if (stream) {
    const parameters: Record<string, string> = {};
    for (const [, name, value] of stream[2]!.matchAll(/<Parameter\s+name="([^"]*)"\s+value="([^"]*)"\s*\/>/g)) parameters[unescape(name!)] = unescape(value!);
    return { verb: 'stream', stream: { url: unescape(stream[1]!), parameters } };
  }
  if (/<Reject\b/.test(xml)) return { verb: 'reject' };
  if (/<Say\b/.test(xml)) return { verb: 'say' };
  return { verb: 'none' };
}
