/** IP address, CIDR and referrer-pattern checks shared by the key form and the server. */

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

export function isIpv4(value: string): boolean {
  return IPV4.test(value);
}

export function isIpv6(value: string): boolean {
  if (!value.includes(':') || !/^[0-9A-Fa-f:.]+$/.test(value)) return false;
  try {
    return new URL(`http://[${value}]/`).hostname.length > 2;
  } catch {
    return false;
  }
}

/** An IPv4/IPv6 address, or a CIDR block such as 203.0.113.0/24 or 2001:db8::/32. */
export function isIpOrCidr(value: string): boolean {
  const [address, prefix, extra] = value.split('/');
  if (extra !== undefined || !address) return false;
  const v4 = isIpv4(address);
  if (!v4 && !isIpv6(address)) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (v4 ? 32 : 128);
}

const HOST_LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const REFERRER_PATTERN = new RegExp(`^(\\*\\.)?${HOST_LABEL}(\\.${HOST_LABEL})*(:\\d{1,5})?$`);

/** A referrer restriction: a host name with an optional port, optionally '*.' for its subdomains. */
export function isReferrerPattern(value: string): boolean {
  return REFERRER_PATTERN.test(value.toLowerCase());
}

/** Whether a Referer header's host matches a pattern ('example.com', '*.example.com', 'localhost:3000'). */
export function referrerMatches(referer: string, pattern: string): boolean {
  let url: URL;
  try {
    url = new URL(referer);
  } catch {
    return false;
  }
  const p = pattern.toLowerCase();
  const host = p.includes(':') ? url.host.toLowerCase() : url.hostname.toLowerCase();
  if (p.startsWith('*.')) return host.endsWith(p.slice(1));
  return host === p;
}
