import { describe, expect, it } from 'vitest';
import { lengthAwarePage, pageNumbers, pageWindow } from '../../src/lib/pagination.ts';

const path = 'https://parley.example/api/user/calls';
const items = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => ({ id: from + i }));

describe('lengthAwarePage', () => {
  it('describes an empty result as one page with no items', () => {
    const page = lengthAwarePage({ data: [], total: 0, page: { page: 1, perPage: 15 }, path, query: {} });
    expect(page).toEqual({
      current_page: 1,
      data: [],
      first_page_url: `${path}?page=1`,
      from: null,
      last_page: 1,
      last_page_url: `${path}?page=1`,
      links: [
        { url: null, label: '&laquo; Previous', active: false },
        { url: `${path}?page=1`, label: '1', active: true },
        { url: null, label: 'Next &raquo;', active: false },
      ],
      next_page_url: null,
      path,
      per_page: 15,
      prev_page_url: null,
      to: null,
      total: 0,
    });
  });

  it('on the last page has no next page and counts from/to from the items there', () => {
    const page = lengthAwarePage({ data: items(31, 35), total: 35, page: { page: 3, perPage: 15 }, path, query: { page: '3' } });
    expect(page.from).toBe(31);
    expect(page.to).toBe(35);
    expect(page.last_page).toBe(3);
    expect(page.next_page_url).toBeNull();
    expect(page.prev_page_url).toBe(`${path}?page=2`);
    expect(page.links.map((link) => link.label)).toEqual(['&laquo; Previous', '1', '2', '3', 'Next &raquo;']);
    expect(page.links.find((link) => link.active)?.label).toBe('3');
  });

  it('past the end answers the requested page, empty, pointing back', () => {
    const page = lengthAwarePage({ data: [], total: 35, page: { page: 9, perPage: 15 }, path, query: { page: '9' } });
    expect(page.current_page).toBe(9);
    expect(page.data).toEqual([]);
    expect(page.from).toBeNull();
    expect(page.to).toBeNull();
    expect(page.next_page_url).toBeNull();
    expect(page.prev_page_url).toBe(`${path}?page=8`);
  });

  it('keeps the request\'s filters in every page URL, replacing only the page', () => {
    const page = lengthAwarePage({
      data: items(16, 30), total: 40, page: { page: 2, perPage: 15 }, path,
      query: { status: 'completed', page: '2', per_page: '15', date_from: '2025-01-01' },
    });
    expect(page.next_page_url).toBe(`${path}?status=completed&page=3&per_page=15&date_from=2025-01-01`);
    expect(page.first_page_url).toBe(`${path}?status=completed&page=1&per_page=15&date_from=2025-01-01`);
  });

  it('handles per_page at its bounds', () => {
    expect(lengthAwarePage({ data: items(1, 1), total: 250, page: { page: 1, perPage: 1 }, path, query: {} }).last_page).toBe(250);
    expect(lengthAwarePage({ data: items(1, 100), total: 250, page: { page: 3, perPage: 100 }, path, query: {} }).last_page).toBe(3);
    expect(pageWindow({ page: 3, perPage: 100 })).toEqual({ offset: 200, limit: 100 });
  });
});

describe('pageNumbers (Laravel\'s link window)', () => {
  it('lists every page when there are few', () => {
    expect(pageNumbers(1, 13)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));
  });

  it('elides the far end near the beginning', () => {
    expect(pageNumbers(2, 50)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, null, 49, 50]);
  });

  it('elides both ends in the middle', () => {
    expect(pageNumbers(25, 50)).toEqual([1, 2, null, 22, 23, 24, 25, 26, 27, 28, null, 49, 50]);
  });

  it('elides the beginning near the end', () => {
    expect(pageNumbers(48, 50)).toEqual([1, 2, null, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50]);
  });
});
