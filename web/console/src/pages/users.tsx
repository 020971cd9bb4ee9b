import { api, ok } from '../api/client.ts';
import { PageHeader, Status } from '../components/page.tsx';
import { when } from '../format.ts';
import { useLoad } from '../hooks.ts';
import { TableBox } from '../components/table-box.tsx';

/** A white-label admin's users, with their balances. */
export function Users() {
  const users = useLoad(() => ok(api.GET('/white-label/users')), []);
  return (
    <>
      <PageHeader title="Users" lead="The users of your platform." />
      <Status loading={users.loading && !users.data} error={users.error} retry={users.reload} />
      {users.data && (
        <TableBox label="Users">
          <table>
            <caption class="visually-hidden">Users</caption>
            <thead><tr><th scope="col">Name</th><th scope="col">Email</th><th scope="col" class="num">Minutes</th><th scope="col" class="num">Chat credits</th><th scope="col">Joined</th></tr></thead>
            <tbody>
              {users.data.data.map((user) => (
                <tr key={user.id}>
                  <td>{user.name}</td>
                  <td>{user.email}</td>
                  <td class="num">{user.minutes_balance}</td>
                  <td class="num">{user.credits_balance}</td>
                  <td>{when(user.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {users.data.data.length === 0 && <p class="empty">No users yet.</p>}
        </TableBox>
      )}
    </>
  );
}
