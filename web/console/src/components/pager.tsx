import { withQuery } from '../router.ts';

export interface PageInfo {
  current_page: number;
  last_page: number;
  total: number;
  from: number | null;
  to: number | null;
}

/** Links to the previous and next page of a paginated list, kept in the address (`?page=`), with where the reader is. */
export function Pager({ page, noun }: { page: PageInfo; noun: string }) {
  const { current_page: current, last_page: last } = page;
  return (
    <nav class="pager" aria-label={`Pages of ${noun}`}>
      <p>{page.total === 0 ? `No ${noun}` : `${page.from ?? 0}–${page.to ?? 0} of ${page.total.toLocaleString()} ${noun}`}</p>
      <div>
        {current > 1 ? <a href={withQuery({ page: current - 1 })} rel="prev">Previous</a> : <span aria-disabled="true">Previous</span>}
        <span>Page {current} of {Math.max(last, 1)}</span>
        {current < last ? <a href={withQuery({ page: current + 1 })} rel="next">Next</a> : <span aria-disabled="true">Next</span>}
      </div>
    </nav>
  );
}
