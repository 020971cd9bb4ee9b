import http from 'node:http';
import { listenOnLoopback } from '../support/ports.ts';

/**
 * A small website for the crawler: linked pages, an off-site link, a page robots.txt forbids, a redirect to
 * a private address, a page larger than the fetch cap, a non-HTML link, a slow page, and a catalogue of
 * `catalogueSize` item pages (a crawl with many pages to store). It counts hits so tests can prove what was
 * and was not fetched.
 */
export const catalogueSize = 40;

export interface TestWebsite {
  url: string;
  hits: Map<string, number>;
  /** Resolves the slow page's pending responses. */
  releaseSlow(): void;
  close(): Promise<void>;
}

function page(title: string, body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head>
<body><nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<main><article>${body}</article></main><footer>Copyright Example Corp. Footer text that is not content.</footer></body></html>`;
}

const filler = (topic: string) => Array.from({ length: 6 }, (_, index) =>
  `<p>Paragraph ${index + 1} about ${topic}. It exists so that the reader view sees enough prose to call this page an article, with sentences of ordinary length and a few details.</p>`).join('\n');

export async function startTestWebsite(options: { privateTarget: string; hugeBytes: number }): Promise<TestWebsite> {
  const hits = new Map<string, number>();
  let slowWaiters: (() => void)[] = [];
  const server = http.createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const html = (text: string) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(text);
    };
    switch (path) {
      case '/robots.txt':
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.end('User-agent: *\nDisallow: /private-area\n');
        return;
      case '/':
        html(page('Acme Home', `<h1>Welcome to Acme Rockets</h1>
          <p>Acme builds reusable rockets for small satellites. Read <a href="/about">about us</a>,
          our <a href="/pricing">pricing</a>, the <a href="/docs/guide#install">guide</a>,
          the <a href="/private-area">staff area</a>, <a href="/redirect-private">the partner portal</a>,
          the <a href="/huge">archive</a>, our <a href="/brochure.pdf">brochure</a>, a <a href="/data">data feed</a>,
          and our friends at <a href="https://offsite.invalid/partners">Offsite Inc</a>.</p>${filler('the company')}`));
        return;
      case '/about':
        html(page('About Acme', `<h1>About us</h1><p>Acme was founded in 1987 by Wile E. Coyote in the Mojave desert.</p>${filler('history')}`));
        return;
      case '/pricing':
        html(page('Pricing', `<h1>Pricing</h1><h2>Launch packages</h2><ul><li>Cubesat rideshare: 45000 dollars per kilogram</li><li>Dedicated launch: 7 million dollars</li></ul>${filler('prices')}`));
        return;
      case '/docs/guide':
        html(page('Guide', `<h1>Installation guide</h1><ol><li>Unpack the flux capacitor</li><li>Attach the gyroscope</li></ol>${filler('installation')}`));
        return;
      case '/private-area':
        html(page('Staff', '<h1>Staff only</h1><p>The vault code is marmalade.</p>'));
        return;
      case '/redirect-private':
        response.writeHead(302, { location: options.privateTarget });
        response.end();
        return;
      case '/huge':
        html(page('Archive', `<h1>Archive</h1><p>${'archive entry '.repeat(Math.ceil(options.hugeBytes / 14))}</p>`));
        return;
      case '/data':
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"secret":"not a page"}');
        return;
      case '/slow':
        slowWaiters.push(() => html(page('Slow', `<h1>Slow page</h1>${filler('patience')}`)));
        return;
      case '/catalogue':
        html(page('Catalogue', `<h1>Catalogue</h1><ul>${Array.from({ length: catalogueSize }, (_, index) =>
          `<li><a href="/catalogue/${index + 1}">Item ${index + 1}</a></li>`).join('')}</ul>${filler('the catalogue')}`));
        return;
      case '/empty':
        html('<!doctype html><html><head><title></title></head><body><script>var x = 1;</script></body></html>');
        return;
      default:
        if (/^\/catalogue\/\d+$/.test(path)) {
          html(page(`Item ${path.slice('/catalogue/'.length)}`, `<h1>Catalogue item</h1>${filler('this item')}`));
          return;
        }
        response.writeHead(404, { 'content-type': 'text/html' });
        response.end('<h1>Not found</h1>');
    }
  });
  const listening = await listenOnLoopback(server);
  return {
    url: listening.url,
    hits,
    releaseSlow() {
      for (const release of slowWaiters) release();
      slowWaiters = [];
    },
    close: () => {
      for (const release of slowWaiters) release();
      return listening.close();
    },
  };
}

/** A server on another loopback address (not in the allow list), standing for a private service. */
export async function startPrivateServer(): Promise<{ url: string; hits: () => number; close(): Promise<void> }> {
  let count = 0;
  const server = http.createServer((_request, response) => {
    count++;
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end('<html><body><h1>Internal admin</h1><p>Internal secrets that must never be scraped.</p></body></html>');
  });
  const { url, close } = await listenOnLoopback(server, '127.0.0.2');
  return {
    url: `${url}/secret`,
    hits: () => count,
    close,
  };
}
