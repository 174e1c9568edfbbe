// The console's `zod` (vite.config.ts aliases the bare specifier here): zod's own messages in
// Japanese, set the moment zod is first loaded, whichever chunk brings it. The entry chunk no
// longer imports zod, so main.tsx cannot be the place that configures it.
import * as z from 'zod/v4';

// jitless: zod 4 compiles a fast parser per object schema with `new Function` (and probes for it
// with one when the first z.object is built), which the server's Content-Security-Policy
// (script-src without 'unsafe-eval') refuses and reports as a violation on every signed-in page.
// It must be set before the first schema is built, hence here, where zod is first loaded.
z.config({ ...z.locales.ja(), jitless: true });

export * from 'zod/v4';
export { z };
export default z;
