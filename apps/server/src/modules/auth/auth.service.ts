import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { OTP_MAX_ATTEMPTS, OTP_MAX_PER_HOUR, OTP_RESEND_WAIT_SECONDS } from '@poi/shared/limits';
import { messages } from '@poi/shared/messages';
import type { Config } from '../../config';
import type { Db } from '../../db/client';
import { inTransaction } from '../../db/transaction';
import type { ChangeFeed } from '../../lib/change-feed';
import { AppError } from '../../lib/errors';
import { createTtlCache } from '../../lib/ttl-cache';
import { hmacHex, randomAlnum, randomDigits, randomTokenBase64url, safeEqualHex, sha256Hex } from '../../lib/crypto';
import type { Mailer } from '../../plugins/mail';
import { revokeUserSessions, upsertUserOnSignIn, type UserRow } from '../users/users.repository';
import { buildSignInMail } from './auth-mail';
import * as repo from './auth.repository';
import { MAGIC_TOKEN_LENGTH, OTP_LENGTH } from '@poi/shared/limits';

export interface SignInResult {
  token: string;
  user: UserRow;
}

export interface AuthService {
  requestOtp(email: string, ip: string, redirect?: string): Promise<{ resendAfter: number }>;
  verifyOtp(email: string, code: string): Promise<SignInResult>;
  verifyMagicLink(token: string): Promise<SignInResult>;
  /** The signed-in user for a bearer token, or undefined when the session is gone. */
  authenticate(token: string): Promise<(UserRow & { sessionId: string }) | undefined>;
  logout(sessionId: string): Promise<void>;
  revokeAllSessions(userId: string): Promise<void>;
  pruneChallenges(): Promise<void>;
}

/** How long a resolved session is reused before the database is asked again. */
export const SESSION_CACHE_MS = 5_000;

export function createAuthService(deps: { db: Db; config: Config; mailer: Mailer; log: FastifyBaseLogger; changes?: ChangeFeed }): AuthService {
  const { db, config, mailer, changes } = deps;
  /**
   * Live sessions by token hash, for a few seconds: the console sends several calls per screen,
   * and a search should not wait for a session query first. Logout, suspension and any change to
   * the user (type, status, name) drop the entries on this instance at once; other instances
   * see a logout or suspension within SESSION_CACHE_MS. An entry never outlives its session's
   * absolute expiry; the idle expiry (days) is checked on every miss.
   */
  const sessionCache = createTtlCache<string, repo.SessionUser | undefined>(SESSION_CACHE_MS);
  const forgetSessions = (match: (user: repo.SessionUser) => boolean) => sessionCache.forget((u) => !!u && match(u));
  changes?.on('user', (id) => forgetSessions((u) => !id || u.id === id));
  const codeHash = (challengeId: string, code: string) => hmacHex(config.appSecret, `otp:${challengeId}:${code}`);
  const tokenHash = (token: string) => hmacHex(config.appSecret, `magic:${token}`);

  async function signIn(challengeId: string, email: string): Promise<SignInResult> {
    const result = await inTransaction(db, async (tx) => {
      if (!(await repo.consumeChallenge(tx, challengeId))) {
        throw new AppError('BAD_REQUEST', messages.otpInvalidOrExpired);
      }
      const user = await upsertUserOnSignIn(tx, email, config.adminEmails.has(email));
      if (user.status === 'suspended') {
        // Thrown after the code was proven: only the mailbox owner learns of the suspension.
        throw new AppError('ACCOUNT_SUSPENDED', messages.accountSuspended);
      }
      const token = randomTokenBase64url(32);
      await repo.insertSession(tx, user.id, sha256Hex(token));
      return { token, user };
    });
    // An address in ADMIN_EMAILS may just have been promoted: its other sessions must see it.
    if (config.adminEmails.has(email)) forgetSessions((u) => u.id === result.user.id);
    return result;
  }

  return {
    async requestOtp(email, ip, redirect) {
      const challengeId = randomUUID();
      const code = randomDigits(OTP_LENGTH);
      const token = randomAlnum(MAGIC_TOKEN_LENGTH);
      await inTransaction(db, async (tx) => {
        await repo.lockAddress(tx, email);
        const window = await repo.getRequestWindow(tx, email);
        if (window.countLastHour > 0 && window.resendWaitSeconds > 0) {
          const wait = Math.ceil(window.resendWaitSeconds);
          throw new AppError('RATE_LIMITED', messages.otpWaitBeforeResend(wait), { retryAfterSeconds: wait });
        }
        if (window.countLastHour >= OTP_MAX_PER_HOUR) {
          throw new AppError('RATE_LIMITED', messages.otpHourlyLimit, { retryAfterSeconds: window.hourlyWaitSeconds });
        }
        await repo.insertChallenge(tx, {
          id: challengeId,
          email,
          codeHash: codeHash(challengeId, code),
          tokenHash: tokenHash(token),
          requestIp: ip,
        });
      });

      const query = redirect && redirect !== '/dashboard' ? `?redirect=${encodeURIComponent(redirect)}` : '';
      const link = `${config.publicUrl}/auth/magic/${token}${query}`;
      try {
        await mailer.send(buildSignInMail(email, code, link));
      } catch (err) {
        deps.log.error({ err }, 'sign-in mail could not be sent');
        // Without the mail the challenge is useless; removing it frees the resend wait.
        await repo.deleteChallenge(db, challengeId);
        throw new AppError('SERVICE_UNAVAILABLE', messages.mailSendFailed);
      }
      return { resendAfter: OTP_RESEND_WAIT_SECONDS };
    },

    async verifyOtp(email, code) {
      const challenge = await repo.findNewestChallenge(db, email);
      if (!challenge || challenge.usedAt || challenge.expired) {
        throw new AppError('BAD_REQUEST', messages.otpInvalidOrExpired);
      }
      if (challenge.attempts >= OTP_MAX_ATTEMPTS) {
        throw new AppError('BAD_REQUEST', messages.otpTooManyAttempts);
      }
      if (!safeEqualHex(codeHash(challenge.id, code), challenge.codeHash)) {
        const attempts = await repo.recordFailedAttempt(db, challenge.id);
        throw new AppError('BAD_REQUEST', attempts >= OTP_MAX_ATTEMPTS ? messages.otpTooManyAttempts : messages.otpInvalidOrExpired);
      }
      return signIn(challenge.id, email);
    },

    async verifyMagicLink(token) {
      const challenge = await repo.findChallengeByTokenHash(db, tokenHash(token));
      if (!challenge || challenge.usedAt || challenge.expired || challenge.attempts >= OTP_MAX_ATTEMPTS) {
        throw new AppError('BAD_REQUEST', messages.magicInvalidOrExpired);
      }
      const newest = await repo.findNewestChallenge(db, challenge.email);
      if (newest?.id !== challenge.id) throw new AppError('BAD_REQUEST', messages.magicInvalidOrExpired);
      try {
        return await signIn(challenge.id, challenge.email);
      } catch (err) {
        if (err instanceof AppError && err.code === 'BAD_REQUEST') {
          throw new AppError('BAD_REQUEST', messages.magicInvalidOrExpired);
        }
        throw err;
      }
    },

    async authenticate(token) {
      if (!/^[A-Za-z0-9_-]{16,128}$/.test(token)) return undefined;
      const hash = sha256Hex(token);
      return sessionCache.get(
        hash,
        async () => {
          const session = await repo.findLiveSession(db, hash);
          if (!session || session.status !== 'active') return undefined;
          // Written at most once a minute: the idle expiry does not need a write per request.
          if (session.touchDue) await repo.touchSession(db, session.sessionId);
          return session;
        },
        // Only live sessions are kept, and never past their absolute expiry.
        (session) => session?.sessionExpiresAt.getTime() ?? 0,
      );
    },

    async logout(sessionId) {
      await repo.revokeSession(db, sessionId);
      forgetSessions((u) => u.sessionId === sessionId);
    },
    async revokeAllSessions(userId) {
      await revokeUserSessions(db, userId);
      forgetSessions((u) => u.id === userId);
    },
    pruneChallenges: () => repo.deleteStaleChallenges(db),
  };
}
