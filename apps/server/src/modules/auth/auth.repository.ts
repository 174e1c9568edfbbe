import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import { OTP_MAX_ATTEMPTS, OTP_RESEND_WAIT_SECONDS, OTP_TTL_MINUTES, SESSION_ABSOLUTE_DAYS, SESSION_IDLE_DAYS } from '@poi/shared/limits';
import type { Executor } from '../../db/client';
import { authChallenges } from '../../db/schema/auth-challenges';
import { sessions } from '../../db/schema/sessions';
import { users } from '../../db/schema/users';

export type ChallengeRow = typeof authChallenges.$inferSelect & { expired: boolean };

/** Serialises sign-in requests for one address, so two concurrent requests cannot both pass the limits. */
export async function lockAddress(ex: Executor, email: string): Promise<void> {
  await ex.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${'otp:' + email}, 0))`);
}

export interface RequestWindow {
  /** Challenges issued to the address in the last hour. */
  countLastHour: number;
  /** Seconds until the 60-second resend wait is over (≤ 0: over). */
  resendWaitSeconds: number;
  /** Seconds until the oldest challenge of the hour leaves the window. */
  hourlyWaitSeconds: number;
}

export async function getRequestWindow(ex: Executor, email: string): Promise<RequestWindow> {
  const result = await ex.execute<{ n: number; resend_wait: number | null; hourly_wait: number | null }>(sql`
    SELECT count(*)::int AS n,
           extract(epoch FROM max(created_at) + make_interval(secs => ${OTP_RESEND_WAIT_SECONDS}) - now())::float8 AS resend_wait,
           extract(epoch FROM min(created_at) + interval '1 hour' - now())::float8 AS hourly_wait
      FROM auth_challenges
     WHERE email = ${email} AND created_at > now() - interval '1 hour'`);
  const row = result.rows[0];
  return {
    countLastHour: Number(row?.n ?? 0),
    resendWaitSeconds: Number(row?.resend_wait ?? 0),
    hourlyWaitSeconds: Number(row?.hourly_wait ?? 0),
  };
}

export async function insertChallenge(
  ex: Executor,
  values: { id: string; email: string; codeHash: string; tokenHash: string; requestIp: string },
): Promise<void> {
  await ex.insert(authChallenges).values({
    ...values,
    expiresAt: sql`now() + make_interval(mins => ${OTP_TTL_MINUTES})`,
  });
}

export async function deleteChallenge(ex: Executor, id: string): Promise<void> {
  await ex.delete(authChallenges).where(eq(authChallenges.id, id));
}

const challengeColumns = {
  id: authChallenges.id,
  email: authChallenges.email,
  codeHash: authChallenges.codeHash,
  tokenHash: authChallenges.tokenHash,
  attempts: authChallenges.attempts,
  requestIp: authChallenges.requestIp,
  createdAt: authChallenges.createdAt,
  expiresAt: authChallenges.expiresAt,
  usedAt: authChallenges.usedAt,
  expired: sql<boolean>`${authChallenges.expiresAt} <= now()`,
};

export async function findNewestChallenge(ex: Executor, email: string): Promise<ChallengeRow | undefined> {
  const rows = await ex
    .select(challengeColumns)
    .from(authChallenges)
    .where(eq(authChallenges.email, email))
    .orderBy(desc(authChallenges.createdAt), desc(authChallenges.id))
    .limit(1);
  return rows[0];
}

export async function findChallengeByTokenHash(ex: Executor, tokenHash: string): Promise<ChallengeRow | undefined> {
  const rows = await ex.select(challengeColumns).from(authChallenges).where(eq(authChallenges.tokenHash, tokenHash)).limit(1);
  return rows[0];
}

/** Counts a wrong code; answers the attempts made so far. */
export async function recordFailedAttempt(ex: Executor, id: string): Promise<number> {
  const rows = await ex
    .update(authChallenges)
    .set({ attempts: sql`${authChallenges.attempts} + 1` })
    .where(eq(authChallenges.id, id))
    .returning({ attempts: authChallenges.attempts });
  return rows[0]?.attempts ?? OTP_MAX_ATTEMPTS;
}

/** Marks the challenge used if it is still usable; false when someone else used it first or it died. */
export async function consumeChallenge(ex: Executor, id: string): Promise<boolean> {
  const rows = await ex
    .update(authChallenges)
    .set({ usedAt: sql`now()` })
    .where(
      and(
        eq(authChallenges.id, id),
        isNull(authChallenges.usedAt),
        sql`${authChallenges.attempts} < ${OTP_MAX_ATTEMPTS}`,
        sql`${authChallenges.expiresAt} > now()`,
      ),
    )
    .returning({ id: authChallenges.id });
  return rows.length === 1;
}

export async function deleteStaleChallenges(ex: Executor): Promise<void> {
  await ex.delete(authChallenges).where(sql`${authChallenges.createdAt} < now() - interval '1 day'`);
}

export async function insertSession(ex: Executor, userId: string, tokenHash: string): Promise<void> {
  await ex.insert(sessions).values({
    userId,
    tokenHash,
    expiresAt: sql`now() + make_interval(days => ${SESSION_ABSOLUTE_DAYS})`,
  });
}

export type SessionUser = typeof users.$inferSelect & { sessionId: string; touchDue: boolean; sessionExpiresAt: Date };

/** The live session for a token hash: not revoked, within the absolute and the idle expiry. */
export async function findLiveSession(ex: Executor, tokenHash: string): Promise<SessionUser | undefined> {
  const result = await ex
    .select({
      sessionId: sessions.id,
      touchDue: sql<boolean>`${sessions.lastUsedAt} < now() - interval '1 minute'`,
      expiresAt: sessions.expiresAt,
      user: users,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(
      and(
        eq(sessions.tokenHash, tokenHash),
        isNull(sessions.revokedAt),
        sql`${sessions.expiresAt} > now()`,
        sql`${sessions.lastUsedAt} > now() - make_interval(days => ${SESSION_IDLE_DAYS})`,
      ),
    )
    .limit(1);
  const row = result[0];
  return row ? { ...row.user, sessionId: row.sessionId, touchDue: row.touchDue, sessionExpiresAt: row.expiresAt } : undefined;
}

export async function touchSession(ex: Executor, sessionId: string): Promise<void> {
  await ex.update(sessions).set({ lastUsedAt: sql`now()` }).where(eq(sessions.id, sessionId));
}

export async function revokeSession(ex: Executor, sessionId: string): Promise<void> {
  await ex.update(sessions).set({ revokedAt: sql`now()` }).where(and(eq(sessions.id, sessionId), isNull(sessions.revokedAt)));
}
