import { api, ok, type Body } from '../api/client.ts';
import { Form } from '../components/form.tsx';
import { Badge, PageHeader, Status } from '../components/page.tsx';
import { when } from '../format.ts';
import { useLoad } from '../hooks.ts';
import { BASE, navigate } from '../router.ts';
import { CampaignFields } from './campaign-form.tsx';
import { TableBox } from '../components/table-box.tsx';

/** The user's campaigns, and a new one: created as a draft, then filled with leads on its page. */
export function Campaigns() {
  const campaigns = useLoad(() => ok(api.GET('/user/campaigns')), []);
  const create = async (body: Record<string, unknown>) => {
    const answer = await ok(api.POST('/user/campaign', { body: body as Body<'/user/campaign', 'post'> }));
    navigate(`${BASE}/campaigns/${answer.data.id}`);
  };
  return (
    <>
      <PageHeader title="Campaigns" lead="Outbound calling: an assistant calls a list of leads within the hours you choose." />
      <Status loading={campaigns.loading && !campaigns.data} error={campaigns.error} retry={campaigns.reload} />
      {campaigns.data?.length === 0 && <p class="empty">No campaigns yet.</p>}
      {campaigns.data && campaigns.data.length > 0 && (
        <TableBox label="Campaigns">
          <table>
            <caption class="visually-hidden">Campaigns</caption>
            <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col" class="num">Calls at once</th><th scope="col">Hours</th><th scope="col">Created</th></tr></thead>
            <tbody>
              {campaigns.data.map((campaign) => (
                <tr key={campaign.id}>
                  <td><a href={`${BASE}/campaigns/${campaign.id}`}>{campaign.name}</a></td>
                  <td><Badge value={campaign.status} /></td>
                  <td class="num">{campaign.max_calls_in_parallel}</td>
                  <td>{campaign.allowed_hours_start_time.slice(0, 5)}–{campaign.allowed_hours_end_time.slice(0, 5)} ({campaign.timezone})</td>
                  <td>{when(campaign.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableBox>
      )}
      <section class="card" aria-labelledby="new-campaign">
        <h2 id="new-campaign">New campaign</h2>
        <Form onSubmit={create} submitLabel="Create campaign" label="New campaign">
          <CampaignFields />
        </Form>
      </section>
    </>
  );
}
