import { randomInt, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox, decodeAppKey, generateAppKey } from '../../src/lib/secrets.ts';
import { SIP_PASSWORD_PURPOSE } from '../../src/resources/sip-trunks/service.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

const appKey = generateAppKey();
let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform({ env: { APP_KEY: appKey } });
});
afterAll(() => platform.close());

const user = (): Promise<TestUser> => createTestUser(platform.database.knex);

/** A valid trunk body of its own: a random number and username, so tests never collide on the unique triple. */
const trunkBody = (overrides: Record<string, unknown> = {}) => ({
  sip_trunk_type: 'number',
  phone_number: `+4930${String(randomInt(1e8)).padStart(8, '0')}`,
  nickname: 'Office PBX',
  sip_username: `user-${randomUUID().slice(0, 8)}`,
  sip_password: 's3cret-pass',
  sip_address: 'sip.example.com',
  country_code: 'de',
  ...overrides,
});

const create = (owner: TestUser, body: Record<string, unknown>) => platform.request('POST', '/user/phone-numbers/sip-trunks', { token: owner.token, body });
const update = (owner: TestUser, id: number, body: Record<string, unknown>) => platform.request('PUT', `/user/phone-numbers/sip-trunks/${id}`, { token: owner.token, body });

async function createdTrunk(owner: TestUser, overrides: Record<string, unknown> = {}) {
  const response = await create(owner, trunkBody(overrides));
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data as Record<string, unknown> & { id: number };
}

/** The 422 errors of creating a trunk with these fields changed. */
async function errorsFor(overrides: Record<string, unknown>) {
  const response = await create(await user(), trunkBody(overrides));
  expect(response.status, JSON.stringify(response.body)).toBe(422);
  return response.body.errors as Record<string, string[]>;
}

describe('POST /api/user/phone-numbers/sip-trunks', () => {
  it('creates the trunk with its defaults, stores the password encrypted and never returns it', async () => {
    const owner = await user();
    const body = trunkBody({ phone_number: '+49 30 1234-5678'.replace('1234', String(randomInt(1000, 9999))) });
    const response = await create(owner, body);
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      message: 'SIP trunk created successfully.',
      data: {
        id: expect.any(Number),
        phone_number: body.phone_number.replace(/[\s-]/g, ''),
        nickname: 'Office PBX',
        sip_trunk_type: 'number',
        sip_username: body.sip_username,
        sip_address: 'sip.example.com',
        sip_calling_format: '+e164',
        inbound_authorization_type: 'auth',
        allowed_inbound_ips: [],
        outbound_proxy: false,
        country_code: 'DE',
        inbound_trunk_id: null,
        outbound_trunk_id: null,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
        updated_at: expect.stringMatching(/Z$/),
      },
    });
    expect(response.text).not.toContain('s3cret-pass');
    const stored = await platform.database.knex('phone_numbers').where({ id: response.body.data.id }).first();
    expect([stored.type, stored.smsCapable, stored.userId]).toEqual(['sip', false, owner.id]);
    expect(stored.sipPassword).not.toContain('s3cret-pass');
    expect(createSecretBox(decodeAppKey(appKey) as Buffer).decrypt(stored.sipPassword, SIP_PASSWORD_PURPOSE)).toBe('s3cret-pass');
  });

  it('takes extension trunks, IP authorization with addresses and ranges, and every calling format', async () => {
    const owner = await user();
    const trunk = await createdTrunk(owner, {
      sip_trunk_type: 'extension',
      phone_number: '1001',
      sip_calling_format: 'national',
      inbound_authorization_type: 'ip',
      allowed_inbound_ips: ['203.0.113.7', '198.51.100.0/24', '2001:db8::/32'],
      outbound_proxy: true,
      sip_address: 'PBX.Example.COM',
    });
    expect(trunk).toMatchObject({
      phone_number: '1001', sip_trunk_type: 'extension', sip_calling_format: 'national', inbound_authorization_type: 'ip',
      allowed_inbound_ips: ['203.0.113.7', '198.51.100.0/24', '2001:db8::/32'], outbound_proxy: true, sip_address: 'pbx.example.com',
    });
    expect((await createdTrunk(owner, { sip_calling_format: 'e164', sip_address: '192.0.2.10' })).sip_calling_format).toBe('e164');
  });

  it('refuses a missing required field with Laravel\'s message and count', async () => {
    const response = await create(await user(), { sip_trunk_type: 'number' });
    expect(response.status).toBe(422);
    expect(response.body.message).toBe('The phone number field is required. (and 4 more errors)');
    expect(Object.keys(response.body.errors).sort()).toEqual(['country_code', 'phone_number', 'sip_address', 'sip_password', 'sip_username']);
  });

  it('validates every field by its rule', async () => {
    expect(await errorsFor({ sip_trunk_type: 'trunk' })).toEqual({ sip_trunk_type: ['The selected sip trunk type is invalid.'] });
    expect(await errorsFor({ phone_number: '030 1234' })).toEqual({ phone_number: ['The phone number field must be a phone number in E.164 format.'] });
    expect(Object.keys(await errorsFor({ sip_trunk_type: 'extension', phone_number: '1234567890123456' }))).toEqual(['phone_number']);
    expect(Object.keys(await errorsFor({ sip_trunk_type: 'extension', phone_number: '10 01' }))).toEqual(['phone_number']);
    expect(await errorsFor({ nickname: 'x'.repeat(51) })).toEqual({ nickname: ['The nickname field must not be greater than 50 characters.'] });
    expect(await errorsFor({ sip_username: 'ab' })).toEqual({ sip_username: ['The sip username field must be at least 3 characters.'] });
    expect(Object.keys(await errorsFor({ sip_username: 'u'.repeat(129) }))).toEqual(['sip_username']);
    expect(await errorsFor({ sip_password: 'pw' })).toEqual({ sip_password: ['The sip password field must be at least 3 characters.'] });
    for (const address of ['sip.example.com:5060', 'sip:pbx.example.com', 'https://pbx.example.com', 'pbx example.com']) {
      expect(await errorsFor({ sip_address: address }), address).toEqual({ sip_address: ['The sip address field must be a host name or IP address without a port.'] });
    }
    expect(await errorsFor({ sip_calling_format: 'e.164' })).toEqual({ sip_calling_format: ['The selected sip calling format is invalid.'] });
    expect(await errorsFor({ inbound_authorization_type: 'token' })).toEqual({ inbound_authorization_type: ['The selected inbound authorization type is invalid.'] });
    expect(await errorsFor({ inbound_authorization_type: 'ip' })).toEqual({
      allowed_inbound_ips: ['The allowed inbound ips field is required when inbound authorization type is ip.'],
    });
    expect(await errorsFor({ inbound_authorization_type: 'ip', allowed_inbound_ips: ['10.0.0.1', 'pbx.example.com', '10.0.0.0/33'] })).toEqual({
      'allowed_inbound_ips.1': ['The allowed_inbound_ips.1 field must be a valid IP address or CIDR range.'],
      'allowed_inbound_ips.2': ['The allowed_inbound_ips.2 field must be a valid IP address or CIDR range.'],
    });
    expect(await errorsFor({ country_code: 'DEU' })).toEqual({ country_code: ['The country code field must be a two-letter country code.'] });
    expect(Object.keys(await errorsFor({ outbound_proxy: 'yes' }))).toEqual(['outbound_proxy']);
  });

  it('answers 409 {error} for a second trunk of the same phone number, username and address, in any account', async () => {
    const body = trunkBody();
    expect((await create(await user(), body)).status).toBe(201);
    for (const duplicate of [body, { ...body, sip_address: 'SIP.EXAMPLE.COM', nickname: 'Other' }]) {
      const response = await create(await user(), duplicate);
      expect([response.status, response.body]).toEqual([409, { error: 'A SIP trunk with the same phone number, username, and address already exists.' }]);
    }
    expect((await create(await user(), { ...body, sip_username: `${body.sip_username}-2` })).status).toBe(201);
  });
});

describe('GET /api/user/phone-numbers/sip-trunks and /{id}', () => {
  it("lists only the caller's trunks, in {data}, without passwords; /all lists them too", async () => {
    const owner = await user();
    const first = await createdTrunk(owner);
    const second = await createdTrunk(owner, { nickname: null });
    await createdTrunk(await user());
    const list = await platform.request('GET', '/user/phone-numbers/sip-trunks', { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ data: [first, second] });
    expect(list.text).not.toContain('sip_password');
    const all = await platform.request('GET', '/user/phone-numbers/all', { token: owner.token });
    expect(all.body.data.map((item: { id: number; type: string }) => [item.id, item.type])).toEqual([[first.id, 'sip'], [second.id, 'sip']]);
  });

  it("answers one trunk in {data}, and 404 {error} for another user's, an unknown id, or a number that is not a trunk", async () => {
    const owner = await user();
    const trunk = await createdTrunk(owner);
    expect((await platform.request('GET', `/user/phone-numbers/sip-trunks/${trunk.id}`, { token: owner.token })).body).toEqual({ data: trunk });
    const [bought] = await platform.database.knex('phone_numbers').insert({ userId: owner.id, phoneNumber: `+4930${randomInt(1e8)}`, countryCode: 'DE' }).returning<{ id: number }[]>('id');
    const theirs = await createdTrunk(await user());
    for (const id of [theirs.id, bought?.id, 999_999_999]) {
      const response = await platform.request('GET', `/user/phone-numbers/sip-trunks/${id}`, { token: owner.token });
      expect([response.status, response.body]).toEqual([404, { error: 'SIP trunk not found.' }]);
    }
  });
});

describe('PUT /api/user/phone-numbers/sip-trunks/{id}', () => {
  it('changes only the fields sent and re-encrypts a new password', async () => {
    const owner = await user();
    const trunk = await createdTrunk(owner);
    const response = await update(owner, trunk.id, { nickname: 'Renamed', sip_password: 'n3w-pass', outbound_proxy: true });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      message: 'SIP trunk updated successfully.',
      data: { ...trunk, nickname: 'Renamed', outbound_proxy: true, updated_at: expect.any(String) },
    });
    expect(response.text).not.toContain('n3w-pass');
    const stored = await platform.database.knex('phone_numbers').where({ id: trunk.id }).first();
    expect(createSecretBox(decodeAppKey(appKey) as Buffer).decrypt(stored.sipPassword, SIP_PASSWORD_PURPOSE)).toBe('n3w-pass');
    expect((await update(owner, trunk.id, {})).body.data).toMatchObject({ nickname: 'Renamed', sip_username: trunk.sip_username });
    expect((await update(owner, trunk.id, { nickname: null })).body.data.nickname).toBeNull();
  });

  it('checks the trunk the change makes: IP authorization needs addresses, an extension type needs an extension', async () => {
    const owner = await user();
    const trunk = await createdTrunk(owner);
    const ip = await update(owner, trunk.id, { inbound_authorization_type: 'ip' });
    expect([ip.status, ip.body.errors]).toEqual([422, { allowed_inbound_ips: ['The allowed inbound ips field is required when inbound authorization type is ip.'] }]);
    expect((await update(owner, trunk.id, { inbound_authorization_type: 'ip', allowed_inbound_ips: ['192.0.2.1'] })).status).toBe(200);
    expect((await update(owner, trunk.id, { sip_trunk_type: 'extension' })).status).toBe(422);
    expect((await update(owner, trunk.id, { sip_trunk_type: 'extension', phone_number: '200' })).body.data).toMatchObject({ sip_trunk_type: 'extension', phone_number: '200' });
    expect((await update(owner, trunk.id, { sip_address: 'pbx.example.com:5060' })).status).toBe(422);
    const stored = await platform.database.knex('phone_numbers').where({ id: trunk.id }).first();
    expect([stored.sipAddress, stored.inboundAuthorizationType]).toEqual(['sip.example.com', 'ip']);
  });

  it('answers 409 when the change makes a duplicate, and 404 {error} for a trunk not of the caller', async () => {
    const owner = await user();
    const first = await createdTrunk(owner);
    const second = await createdTrunk(owner);
    const clash = await update(owner, second.id, { phone_number: first.phone_number, sip_username: first.sip_username });
    expect([clash.status, clash.body]).toEqual([409, { error: 'A SIP trunk with the same phone number, username, and address already exists.' }]);
    const theirs = await createdTrunk(await user());
    const response = await update(owner, theirs.id, { nickname: 'Mine' });
    expect([response.status, response.body]).toEqual([404, { error: 'SIP trunk not found.' }]);
    expect((await platform.database.knex('phone_numbers').where({ id: theirs.id }).first()).nickname).toBe('Office PBX');
  });
});

describe('DELETE /api/user/phone-numbers/{id} of a SIP trunk', () => {
  it('deletes it at once, and the fixed sip-trunks path is never taken for an id', async () => {
    const owner = await user();
    const trunk = await createdTrunk(owner);
    const response = await platform.request('DELETE', `/user/phone-numbers/${trunk.id}`, { token: owner.token });
    expect([response.status, response.body]).toEqual([200, { message: 'Phone number deleted successfully.' }]);
    expect((await platform.request('GET', '/user/phone-numbers/sip-trunks', { token: owner.token })).body).toEqual({ data: [] });
    const gone = await platform.request('GET', `/user/phone-numbers/sip-trunks/${trunk.id}`, { token: owner.token });
    expect(gone.status).toBe(404);
  });
});
