// The console's `zod` (vite.config.ts aliases the bare specifier here): zod's own messages in
// Japanese, set the moment zod is first loaded, whichever chunk brings it. The entry chunk no
// longer imports zod, so main.tsx cannot be the place that configures it.
import * as z from 'zod/v4';

z.config(z.locales.ja());

export * from 'zod/v4';
export { z };
export default z;
