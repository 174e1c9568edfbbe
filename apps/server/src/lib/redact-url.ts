/**
 * A request URL as it may be logged: the token of a magic link (the API call and the console
 * page the mail opens) and any code or token in the query string are replaced, since whoever
 * reads the log could otherwise sign in with them.
 */
export function redactUrl(url: string): string {
  const queryAt = url.indexOf('?');
  const pathname = queryAt === -1 ? url : url.slice(0, queryAt);
  const query = queryAt === -1 ? '' : url.slice(queryAt);
  const safePath = pathname.replace(/(\/auth\/magic\/)[^/]*/i, '$1[REDACTED]');
  const safeQuery = query.replace(/([?&](?:code|token|otp)=)[^&#]*/gi, '$1[REDACTED]');
  return safePath + safeQuery;
}
