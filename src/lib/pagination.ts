/**
 * Laravel's length-aware paginator, field for field, because clients of the original platform read it:
 * `current_page, data, first_page_url, from, last_page, last_page_url, links, next_page_url, path, per_page,
 * prev_page_url, to, total`. Page URLs keep the request's other query parameters.
 */
export interface PageLink {
  url: string | null;
  label: string;
  active: boolean;
}

export interface LengthAwarePage<T> {
  current_page: number;
  data: T[];
  first_page_url: string;
  from: number | null;
  last_page: number;
  last_page_url: string;
  links: PageLink[];
  next_page_url: string | null;
  path: string;
  per_page: number;
  prev_page_url: string | null;
  to: number | null;
  total: number;
}

export interface PageRequest {
  page: number;
  perPage: number;
}

/** Rows to skip and take for a page request. */
export function pageWindow({ page, perPage }: PageRequest): { offset: number; limit: number } {
  return { offset: (page - 1) * perPage, limit: perPage };
}

// Laravel's UrlWindow with its default of three pages on each side of the current one.
const ON_EACH_SIDE = 3;

function range(from: number, to: number): number[] {
  const pages: number[] = [];
  for (let page = from; page <= to; page++) pages.push(page);
  return pages;
}

/** The numbered links, with `null` where Laravel shows a `...` gap. */
export function pageNumbers(currentPage: number, lastPage: number): (number | null)[] {
  if (lastPage < ON_EACH_SIDE * 2 + 8) return range(1, lastPage);
  const window = ON_EACH_SIDE + 4;
  const start = [1, 2];
  const finish = [lastPage - 1, lastPage];
  if (currentPage <= window) return [...range(1, window + ON_EACH_SIDE), null, ...finish];
  if (currentPage > lastPage - window) return [...start, null, ...range(lastPage - (window + (ON_EACH_SIDE - 1)), lastPage)];
  return [...start, null, ...range(currentPage - ON_EACH_SIDE, currentPage + ON_EACH_SIDE), null, ...finish];
}

/**
 * `path` with the request's query string, `name` set to `value`: in its place when the query has it (as
 * Laravel's paginators merge it), else last. Lists repeat their key; absent values are left out.
 */
export function urlWith(path: string, query: Record<string, unknown>, name: string, value: string): string {
  const params = new URLSearchParams();
  let placed = false;
  for (const [key, item] of Object.entries(query)) {
    if (key === name) {
      params.append(name, value);
      placed = true;
    } else {
      for (const entry of Array.isArray(item) ? item as unknown[] : [item]) {
        if (typeof entry === 'string' || typeof entry === 'number' || typeof entry === 'boolean') params.append(key, String(entry));
      }
    }
  }
  if (!placed) params.append(name, value);
  return `${path}?${params.toString()}`;
}

export function lengthAwarePage<T>(options: {
  data: T[];
  total: number;
  page: PageRequest;
  /** Absolute URL of the endpoint, without a query string. */
  path: string;
  /** The request's query parameters; `page` is replaced in each link, the others are kept. */
  query: Record<string, string | string[] | undefined>;
}): LengthAwarePage<T> {
  const { data, total, path } = options;
  const { page: currentPage, perPage } = options.page;
  const lastPage = Math.max(Math.ceil(total / perPage), 1);

  const url = (page: number): string => urlWith(path, options.query, 'page', String(page));

  const from = data.length > 0 ? (currentPage - 1) * perPage + 1 : null;
  const to = from === null ? null : from + data.length - 1;
  const previous = currentPage > 1 ? url(currentPage - 1) : null;
  const next = currentPage < lastPage ? url(currentPage + 1) : null;

  const links: PageLink[] = [
    { url: previous, label: '&laquo; Previous', active: false },
    ...pageNumbers(currentPage, lastPage).map((page) => (page === null
      ? { url: null, label: '...', active: false }
      : { url: url(page), label: String(page), active: page === currentPage })),
    { url: next, label: 'Next &raquo;', active: false },
  ];

  return {
    current_page: currentPage,
    data,
    first_page_url: url(1),
    from,
    last_page: lastPage,
    last_page_url: url(lastPage),
    links,
    next_page_url: next,
    path,
    per_page: perPage,
    prev_page_url: previous,
    to,
    total,
  };
}
