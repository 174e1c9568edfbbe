import { existsSync } from 'node:fs';
import path from 'node:path';
import type { RouteObject } from 'react-router';
import { describe, expect, it } from 'vitest';
import { consoleRoutes, ROUTE_MODULES } from './route-modules';
import { routes } from './router';

const WEB = path.resolve(__dirname, '../..');

/** Every path of the route table, nested paths joined ('/admin' + 'dashboard'); the catch-all left out. */
function paths(list: RouteObject[], parent = ''): string[] {
  return list.flatMap((r) => {
    const here = r.path === undefined ? parent : r.path.startsWith('/') ? r.path : `${parent}/${r.path}`;
    const own = r.path !== undefined && r.path !== '*' && !r.children ? [here] : [];
    return [...own, ...paths(r.children ?? [], here)];
  });
}

describe('the route modules table', () => {
  it('has exactly the router’s paths, each module a file of the console', () => {
    expect(ROUTE_MODULES.map((r) => r.path).sort()).toEqual(paths(routes).sort());
    for (const r of ROUTE_MODULES) for (const m of r.modules) expect(existsSync(path.join(WEB, m)), m).toBe(true);
  });

  it('marks as signed in exactly the routes under the console shell', () => {
    const shell = routes.find((r) => r.children?.some((c) => c.path === '/dashboard'))!;
    const inShell = new Set(paths(shell.children!));
    for (const r of ROUTE_MODULES) expect(r.signedIn, r.path).toBe(inShell.has(r.path));
  });

  it('gives the server the signed-in paths and the top bar to draw in them', () => {
    const list = consoleRoutes();
    expect(list.signedIn).toContain('/billing');
    expect(list.signedIn).toContain('/marketplace/:datasetId');
    expect(list.signedIn).not.toContain('/auth/login');
    expect(list.signedInPlaceholder).toContain('POI Cloud');
    expect(list.signedInPlaceholder).toContain('aria-hidden="true"');
  });
});
