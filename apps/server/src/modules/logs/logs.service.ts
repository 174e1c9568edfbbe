import type { FrontendLogBody } from '@poi/shared/schemas/logs';
import { redactSecrets } from '@poi/shared/schemas/logs';
import type { Db } from '../../db/client';
import * as repo from './logs.repository';

export interface LogsService {
  store(body: FrontendLogBody, context: { userId: string | null; ip: string }): Promise<void>;
  deleteExpired(): Promise<number>;
}

export function createLogsService(deps: { db: Db }): LogsService {
  return {
    async store(body, context) {
      // Redacted again here: an old or hostile client must not get a code or token into the table.
      const payload = redactSecrets(body) as FrontendLogBody;
      await repo.insertFrontendLog(deps.db, {
        userId: context.userId,
        ip: context.ip,
        type: payload.type,
        message: payload.message ?? null,
        endpoint: payload.endpoint ?? null,
        method: payload.method ?? null,
        status: payload.status ?? null,
        payload,
      });
    },
    deleteExpired: () => repo.deleteExpiredFrontendLogs(deps.db),
  };
}
