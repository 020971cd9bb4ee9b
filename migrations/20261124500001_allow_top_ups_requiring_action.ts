import type { Knex } from 'knex';

/**
 * A top-up the user asks for is charged on-session, so a card that asks for 3-D Secure leaves it waiting for
 * the user to authenticate (`requires_action`) until the payment's webhook event settles it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table top_ups drop constraint top_ups_status');
  await knex.raw("alter table top_ups add constraint top_ups_status check (status in ('pending', 'processing', 'requires_action', 'succeeded', 'failed'))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table top_ups drop constraint top_ups_status');
  await knex.raw("alter table top_ups add constraint top_ups_status check (status in ('pending', 'processing', 'succeeded', 'failed'))");
}
