import robotsParserModule from 'robots-parser';
import { declaredCharset, FetchRefusedError, type SafeFetch } from '../../lib/safe-fetch.ts';
import { parseDocument } from './dom.ts';
import { decodeText } from './extract.ts';

interface Robots {
  isAllowed(url: string, userAgent?: string): boolean | undefined;
}

// robots-parser is CommonJS; under Node's ESM loader its function arrives as the default export.
const robotsParser = robotsParserModule as unknown as (url: string, contents: string) => Robots;

export interface CrawledPage {
  url: string;
  html: string;
}

export interface CrawlResult {
  pages: CrawledPage[];
  /** Pages that were tried and skipped, with why: the document records them only when nothing was read. */
  skipped: { url: string; reason: string }[];
}

const htmlTypes = new Set(['text/html', 'application/xhtml+xml']);
// Links to these are not pages; fetching them only to skip them would waste the link budget's time.
const nonPageExtension = /\.(pdf|jpe?g|png|gif|webp|svg|ico|zip|gz|tgz|rar|7z|mp[34]|m4a|wav|ogg|webm|avi|mov|css|js|json|xml|txt|docx?|xlsx?|pptx?|woff2?|ttf|exe|dmg|iso)$/i;

function normalize(url: URL): string {
  const copy = new URL(url.href);
  copy.hash = '';
  return copy.href;
}

function metaCharset(head: Buffer): string | undefined {
  const text = head.subarray(0, 2048).toString('latin1');
  return /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(text)?.[1]?.toLowerCase();
}

/** Links of a page that stay on its site (same host), resolved against the page, fragments removed. */
export function sameSiteLinks(html: string, pageUrl: string): string[] {
  const document = parseDocument(html);
  const base = new URL(pageUrl);
  const links: string[] = [];
  for (const anchor of Array.from(document.querySelectorAll('a[href]'))) {
    const href = anchor.getAttribute('href') ?? '';
    let target: URL;
    try {
      target = new URL(href, base);
    } catch {
      continue;
    }
    if ((target.protocol !== 'http:' && target.protocol !== 'https:') || target.hostname !== base.hostname) continue;
    if (nonPageExtension.test(target.pathname)) continue;
    links.push(normalize(target));
  }
  return links;
}

/**
 * Fetches the start pages, then same-site links breadth-first, at most `linkLimit` of them, through the
 * guarded client; honours each origin's robots.txt and skips anything that is not HTML.
 */
export async function crawlWebsite(options: {
  seeds: string[];
  linkLimit: number;
  fetch: SafeFetch;
  userAgent: string;
  signal?: AbortSignal;
  onPage?: (progress: { fetched: number; skipped: number }) => void;
}): Promise<CrawlResult> {
  const robots = new Map<string, Robots | undefined>();
  const allowedByRobots = async (url: URL): Promise<boolean> => {
    if (!robots.has(url.origin)) {
      const robotsUrl = `${url.origin}/robots.txt`;
      try {
        const response = await options.fetch(robotsUrl, { maxBytes: 512 * 1024, signal: options.signal });
        robots.set(url.origin, response.ok ? robotsParser(robotsUrl, decodeText(response.body)) : undefined);
      } catch (error) {
        if (options.signal?.aborted) throw error;
        // An unreachable robots.txt says nothing; the page itself decides.
        robots.set(url.origin, undefined);
      }
    }
    return robots.get(url.origin)?.isAllowed(url.href, options.userAgent) ?? true;
  };

  const result: CrawlResult = { pages: [], skipped: [] };
  const seen = new Set<string>();
  const queue: { url: string; seed: boolean }[] = [];
  for (const seed of options.seeds) {
    let url: URL;
    try {
      url = new URL(seed);
    } catch {
      result.skipped.push({ url: seed, reason: `"${seed}" is not a valid URL.` });
      continue;
    }
    const key = normalize(url);
    if (!seen.has(key)) {
      seen.add(key);
      queue.push({ url: key, seed: true });
    }
  }
  let followed = 0;
  while (queue.length > 0) {
    const next = queue.shift();
    if (!next) break;
    const url = new URL(next.url);
    try {
      if (!(await allowedByRobots(url))) {
        result.skipped.push({ url: next.url, reason: `robots.txt of ${url.host} does not allow ${url.pathname}.` });
        continue;
      }
      const response = await options.fetch(next.url, { accept: (type) => htmlTypes.has(type), signal: options.signal });
      if (!response.ok) {
        result.skipped.push({ url: next.url, reason: `${next.url} answered HTTP ${response.status}.` });
        continue;
      }
      const html = decodeText(response.body, declaredCharset(response) ?? metaCharset(response.body));
      result.pages.push({ url: response.url, html });
      seen.add(response.url);
      for (const link of sameSiteLinks(html, response.url)) {
        if (seen.has(link) || followed >= options.linkLimit) continue;
        seen.add(link);
        followed++;
        queue.push({ url: link, seed: false });
      }
    } catch (error) {
      if (options.signal?.aborted) throw error;
      if (!(error instanceof FetchRefusedError)) throw error;
      result.skipped.push({ url: next.url, reason: error.message });
    } finally {
      options.onPage?.({ fetched: result.pages.length, skipped: result.skipped.length });
    }
  }
  return result;
}
