import net from 'node:net';

/**
 * Which IP addresses a user-supplied URL may reach: the address classification behind the guarded fetch
 * client (`safe-fetch.ts`), and the allow list that lets private addresses through for tests and intranets.
 */

// The IANA IPv4 Special-Purpose Address Registry, whole, plus multicast (224.0.0.0/4, its own registry).
// Smaller entries inside these (192.0.0.0/29, 192.0.0.170/32, 192.88.99.2/32, ...) are covered by them. The few
// the registry marks globally reachable (AS112 and AMT anycast, the PCP and TURN anycast addresses) are refused
// too: they are network services, never a website or an API.
const ipv4SpecialPurpose: [string, number][] = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.31.196.0', 24], ['192.52.193.0', 24], ['192.88.99.0', 24],
  ['192.168.0.0', 16], ['192.175.48.0', 24], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4], ['255.255.255.255', 32],
];

// The IANA IPv6 Special-Purpose Address Registry, whole (2001::/23 as one block, its exceptions included),
// plus multicast, the deprecated site-local fec0::/10, and two deprecated forms that embed an IPv4 address,
// refused whatever they embed: IPv4-compatible ::/96 (RFC 4291) and IPv4-translated ::ffff:0:0:0/96
// (RFC 2765). Local-use NAT64 (64:ff9b:1::/48) puts the IPv4 address where its operator chooses, so it is
// refused too.
const ipv6SpecialPurpose: [string, number][] = [
  ['::', 128], ['::1', 128], ['::', 96], ['::ffff:0:0:0', 96], ['64:ff9b:1::', 48], ['100::', 64],
  ['100:0:0:1::', 64], ['2001::', 23], ['2001:db8::', 32], ['2620:4f:8000::', 48], ['3fff::', 20],
  ['5f00::', 16], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
];

// IPv6 forms that carry an IPv4 address, with the 16-bit words that hold it: such an address goes where the
// IPv4 address goes (a socket to ::ffff:a.b.c.d is an IPv4 socket; a NAT64 gateway or 6to4 relay forwards
// to the embedded address), so it is exactly as public as that address.
const ipv4Embeddings: { prefix: string; length: number; words: [number, number] }[] = [
  { prefix: '::ffff:0:0', length: 96, words: [6, 7] }, // IPv4-mapped
  { prefix: '64:ff9b::', length: 96, words: [6, 7] }, // NAT64 well-known prefix (RFC 6052)
  { prefix: '2002::', length: 16, words: [1, 2] }, // 6to4 (RFC 3056)
];

const ipv4Refused = new net.BlockList();
for (const [address, prefix] of ipv4SpecialPurpose) ipv4Refused.addSubnet(address, prefix, 'ipv4');
const ipv6Refused = new net.BlockList();
for (const [address, prefix] of ipv6SpecialPurpose) ipv6Refused.addSubnet(address, prefix, 'ipv6');
// Only 2000::/3 is allocated for global unicast; anything outside it that IANA assigns later stays refused.
const globalUnicast = new net.BlockList();
globalUnicast.addSubnet('2000::', 3, 'ipv6');
const embeddings = ipv4Embeddings.map(({ prefix, length, words }) => {
  const range = new net.BlockList();
  range.addSubnet(prefix, length, 'ipv6');
  return { range, words };
});

/** The eight 16-bit words of a valid IPv6 address without zone (`::` expanded, a dotted IPv4 tail read). */
function ipv6Words(address: string): number[] {
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  const hex = dotted
    ? `${address.slice(0, dotted.index)}${(Number(dotted[1]) * 256 + Number(dotted[2])).toString(16)}:${(Number(dotted[3]) * 256 + Number(dotted[4])).toString(16)}`
    : address;
  const read = (part: string | undefined) => (part ? part.split(':').map((word) => Number.parseInt(word, 16)) : []);
  const [head, tail] = hex.split('::');
  const left = read(head);
  const right = read(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** The IPv4 address an IPv6 address stands for, when it is one of the embedding forms. */
function embeddedIPv4(address: string): string | undefined {
  const embedding = embeddings.find(({ range }) => range.check(address, 'ipv6'));
  if (!embedding) return undefined;
  const words = ipv6Words(address);
  const [high, low] = embedding.words.map((index) => words[index] ?? 0) as [number, number];
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/**
 * Whether an address is routable on the public internet: false for anything that is not an IP address, for
 * every special-purpose range of both IANA registries (private, loopback, link-local with the cloud metadata
 * address, CGNAT, documentation, multicast, ...), for IPv6 outside global unicast and for scoped (`%zone`)
 * addresses. An IPv6 address embedding an IPv4 address (mapped, NAT64, 6to4) is judged by the IPv4 address.
 */
export function isPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return !ipv4Refused.check(address, 'ipv4');
  if (family !== 6 || address.includes('%')) return false;
  const ipv4 = embeddedIPv4(address);
  if (ipv4 !== undefined) return !ipv4Refused.check(ipv4, 'ipv4');
  return globalUnicast.check(address, 'ipv6') && !ipv6Refused.check(address, 'ipv6');
}

export interface AllowList {
  allowsHost(hostname: string): boolean;
  allowsAddress(address: string): boolean;
}

/**
 * Parses `FETCH_ALLOW_HOSTS` entries; throws on a malformed CIDR so a typo is not a silent refusal. An
 * IPv4 entry also allows the IPv4-mapped IPv6 form of its addresses (the same socket), no other form.
 */
export function parseAllowList(entries: string[]): AllowList {
  const names = new Set<string>();
  const addresses = new net.BlockList();
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase().replace(/^\[|\]$/g, '');
    if (entry === '') continue;
    const cidr = /^(.+)\/(\d{1,3})$/.exec(entry);
    if (cidr?.[1] && cidr[2]) {
      const family = net.isIP(cidr[1]);
      const prefix = Number(cidr[2]);
      if (family === 0 || prefix > (family === 4 ? 32 : 128)) throw new Error(`"${raw}" is not a valid CIDR range.`);
      addresses.addSubnet(cidr[1], prefix, family === 4 ? 'ipv4' : 'ipv6');
    } else if (net.isIP(entry) !== 0) {
      addresses.addAddress(entry, net.isIPv4(entry) ? 'ipv4' : 'ipv6');
    } else {
      names.add(entry.replace(/\.$/, ''));
    }
  }
  return {
    allowsHost: (hostname) => names.has(hostname.toLowerCase().replace(/\.$/, '')),
    // BlockList matches an IPv4-mapped IPv6 address against IPv4 entries by itself.
    allowsAddress: (address) => net.isIP(address) !== 0 && addresses.check(address, net.isIPv4(address) ? 'ipv4' : 'ipv6'),
  };
}
