import { PageHeader } from '../components/page.tsx';
import { BASE } from '../router.ts';

export function NotFound() {
  return (
    <>
      <PageHeader title="Page not found" />
      <p>There is no page at this address. <a href={`${BASE}/overview`}>Go to the overview</a>.</p>
    </>
  );
}
