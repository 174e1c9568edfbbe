import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';

export async function checkDatabase(ex: Executor): Promise<void> {
  await ex.execute(sql`SELECT 1`);
}
