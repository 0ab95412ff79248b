/**
 * Laravel's LengthAwarePaginator, as JSON: the resource-collection envelope
 * (`data`/`links`/`meta`) and the bare paginator, with the same page URLs and the same
 * `meta.links` window ("« Previous", 1 2 … 9 10, "Next »").
 */

export interface Page<T> {
  items: T[];
  total: number;
  perPage: number;
  currentPage: number;
  lastPage: number;
  from: number | null;
  to: number | null;
}

export function paginate<T>(all: T[], page: number, perPage: number): Page<T> {
  const total = all.length;
  const lastPage = Math.max(Math.ceil(total / perPage), 1);
  const start = (page - 1) * perPage;
  const items = all.slice(start, start + perPage);
  return {
    items,
    total,
    perPage,
    currentPage: page,
    lastPage,
    from: items.length > 0 ? start + 1 : null,
    to: items.length > 0 ? start + items.length : null,
  };
}

/**
 * Page URLs: `path?` the request's query (as `withQueryString()` keeps it) with `page` set,
 * encoded as PHP's `http_build_query(..., PHP_QUERY_RFC3986)` does.
 */
export class PageUrls {
  constructor(
    readonly path: string,
    private readonly query: [string, string][],
  ) {}

  url(page: number): string {
    const params: [string, string][] = [];
    let placed = false;
    for (const [key] of this.query) {
      if (key === 'page') {
        // PHP arrays keep one value per key: the page takes the place of the first one.
        if (!placed) params.push(['page', String(page)]);
        placed = true;
      } else if (!params.some(([k]) => k === key)) {
        // ... and the last of repeated keys wins, at the place of the first.
        params.push([key, this.query.filter(([k]) => k === key).at(-1)![1]]);
      }
    }
    if (!placed) params.push(['page', String(page)]);
    const encoded = params.map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`).join('&');
    return `${this.path}?${encoded}`;
  }
}

function rfc3986(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export interface MetaLink {
  url: string | null;
  label: string;
  active: boolean;
}

/** The page numbers Laravel lists in `meta.links` (UrlWindow with onEachSide = 3). */
export function pageWindow(current: number, last: number, onEachSide = 3): (number | '...')[] {
  const range = (a: number, b: number) => Array.from({ length: Math.max(0, b - a + 1) }, (_, i) => a + i);
  if (last < onEachSide * 2 + 8) return range(1, last);
  const window = onEachSide + 4;
  if (current <= window) return [...range(1, window + onEachSide), '...', ...range(last - 1, last)];
  if (current > last - window) return [...range(1, 2), '...', ...range(last - (window + (onEachSide - 1)), last)];
  return [...range(1, 2), '...', ...range(current - onEachSide, current + onEachSide), '...', ...range(last - 1, last)];
}

function metaLinks<T>(page: Page<T>, urls: PageUrls): MetaLink[] {
  const links: MetaLink[] = [
    { url: page.currentPage > 1 ? urls.url(page.currentPage - 1) : null, label: '&laquo; Previous', active: false },
  ];
  for (const p of pageWindow(page.currentPage, page.lastPage)) {
    links.push(
      p === '...'
        ? { url: null, label: '...', active: false }
        : { url: urls.url(p), label: String(p), active: p === page.currentPage },
    );
  }
  links.push({
    url: page.currentPage < page.lastPage ? urls.url(page.currentPage + 1) : null,
    label: 'Next &raquo;',
    active: false,
  });
  return links;
}

/** `{data, links, meta}` as a Laravel resource collection answers. */
export function resourceEnvelope<T>(
  page: Page<T>,
  data: unknown[],
  urls: PageUrls,
  /** The product reads its page size from a setting, a string: `"per_page": "10"`. */
  perPageAsString = false,
): Record<string, unknown> {
  return {
    data,
    links: {
      first: urls.url(1),
      last: urls.url(page.lastPage),
      prev: page.currentPage > 1 ? urls.url(page.currentPage - 1) : null,
      next: page.currentPage < page.lastPage ? urls.url(page.currentPage + 1) : null,
    },
    meta: {
      current_page: page.currentPage,
      from: page.from,
      last_page: page.lastPage,
      links: metaLinks(page, urls),
      path: urls.path,
      per_page: perPageAsString ? String(page.perPage) : page.perPage,
      to: page.to,
      total: page.total,
    },
  };
}

/** A bare paginator's `toArray()`, as other endpoints of the product answer (stats among them). */
export function paginatorEnvelope<T>(
  page: Page<T>,
  data: unknown[],
  urls: PageUrls,
  /** The stats endpoint passes the page size as the request (or a setting) gave it: a string. */
  perPageAsString = false,
): Record<string, unknown> {
  return {
    current_page: page.currentPage,
    data,
    first_page_url: urls.url(1),
    from: page.from,
    last_page: page.lastPage,
    last_page_url: urls.url(page.lastPage),
    links: metaLinks(page, urls),
    next_page_url: page.currentPage < page.lastPage ? urls.url(page.currentPage + 1) : null,
    path: urls.path,
    per_page: perPageAsString ? String(page.perPage) : page.perPage,
    prev_page_url: page.currentPage > 1 ? urls.url(page.currentPage - 1) : null,
    to: page.to,
    total: page.total,
  };
}
