import { startOfDay, dayOf } from '@poi/shared/billing-time';
import { senToDecimalString, toSen } from '@poi/shared/money';
import type { AccountType } from '@poi/shared/roles';
import { PRICING_FIELDS, type PricingPreview, type PricingVersionBody, type UpdatePricingVersionBody } from '@poi/shared/schemas/pricing';
import type { Db, Executor } from '../../db/client';
import { inTransaction } from '../../db/transaction';
import type { ChangeFeed } from '../../lib/change-feed';
import { AppError } from '../../lib/errors';
import { writeAudit, type AuditActor } from '../audit/audit';
import { toPricingVersion } from './pricing.mapper';
import { activeUsersOfType, deletePricingVersion, insertPricingVersion, lockPricingVersion, updatePricingVersion, type PricingVersionRow } from './pricing.repository';
import { findVersionAt, type PricingService } from './pricing.service';

export const adminPricingMessages = {
  notFuture: '適用開始日は明日以降の日付を指定してください(料金はさかのぼって変更できません)',
  inForce: 'すでに適用が始まっている料金設定は変更・削除できません。新しい料金設定を作成してください',
  duplicate: '同じアカウント種別・適用開始日の料金設定がすでにあります',
  notFound: '料金設定が見つかりません',
};

/**
 * Pricing versions from the admin screen: created for tomorrow (Japan time) or later,
 * changed or deleted only before they start, never retroactively; each with one audit row. The
 * pricing cache of every instance is told at once (change feed).
 */
export function createAdminPricingService(deps: { db: Db; pricing: PricingService; changes?: ChangeFeed; now?: () => Date }) {
  const { db, changes } = deps;
  const now = deps.now ?? (() => new Date());

  /** effective_from must be a Japan-time day after today. */
  function startOf(day: string): Date {
    if (day <= dayOf(now())) throw new AppError('VALIDATION_ERROR', adminPricingMessages.notFuture, { errors: [{ field: 'effective_from', message: adminPricingMessages.notFuture }] });
    return startOfDay(day);
  }

  const columns = (b: UpdatePricingVersionBody) => ({
    effectiveFrom: startOf(b.effective_from),
    baseFee: senToDecimalString(toSen(b.base_fee)),
    freeSearchesPerMonth: b.free_searches_per_month,
    monthlyFee: senToDecimalString(toSen(b.monthly_fee)),
    providerShareBp: Math.round(b.provider_share_percent * 100),
    rateLimitPerMinute: b.rate_limit_per_minute,
    maxApiKeys: b.max_api_keys,
  });

  async function lockFuture(tx: Executor, id: number): Promise<PricingVersionRow> {
    const row = await lockPricingVersion(tx, id);
    if (!row) throw new AppError('NOT_FOUND', adminPricingMessages.notFound);
    if (row.effectiveFrom.getTime() <= now().getTime()) throw new AppError('CONFLICT', adminPricingMessages.inForce);
    return row;
  }

  const duplicate = (err: unknown) => (err as { code?: string })?.code === '23505' || (err as { cause?: { code?: string } })?.cause?.code === '23505';
  const done = <T>(v: T) => {
    changes?.changed('pricing');
    return v;
  };

  return {
    async preview(body: PricingVersionBody): Promise<PricingPreview> {
      const at = startOf(body.effective_from);
      const all = await deps.pricing.history();
      const previous = findVersionAt(all, body.account_type, new Date(at.getTime() - 1)) ?? null;
      const prev = previous ? toPricingVersion(previous) : null;
      const proposed = { ...body, provider_share_percent: body.provider_share_percent };
      const changes = PRICING_FIELDS.filter((f) => !prev || prev[f] !== proposed[f]).map((f) => ({ field: f, from: prev ? prev[f] : null, to: proposed[f] }));
      const affected = await activeUsersOfType(db, body.account_type as AccountType);
      return { account_type: body.account_type, effective_from: body.effective_from, previous: prev, changes, affected_users: affected };
    },

    async create(actor: AuditActor, body: PricingVersionBody) {
      const values = columns(body);
      try {
        const row = await inTransaction(db, async (tx) => {
          const created = await insertPricingVersion(tx, { accountType: body.account_type, ...values, createdBy: actor.id });
          await writeAudit(tx, actor, {
            action: 'pricing_version.created',
            targetType: 'pricing_version',
            targetId: String(created.id),
            before: null,
            after: { ...toPricingVersion(created), reason: body.reason },
          });
          return created;
        });
        return done(row);
      } catch (err) {
        if (duplicate(err)) throw new AppError('CONFLICT', adminPricingMessages.duplicate);
        throw err;
      }
    },

    async update(actor: AuditActor, id: number, body: UpdatePricingVersionBody) {
      try {
        const row = await inTransaction(db, async (tx) => {
          const before = await lockFuture(tx, id);
          const updated = await updatePricingVersion(tx, id, columns(body));
          await writeAudit(tx, actor, {
            action: 'pricing_version.updated',
            targetType: 'pricing_version',
            targetId: String(id),
            before: toPricingVersion(before),
            after: { ...toPricingVersion(updated!), reason: body.reason },
          });
          return updated!;
        });
        return done(row);
      } catch (err) {
        if (duplicate(err)) throw new AppError('CONFLICT', adminPricingMessages.duplicate);
        throw err;
      }
    },

    async remove(actor: AuditActor, id: number, reason: string) {
      await inTransaction(db, async (tx) => {
        const before = await lockFuture(tx, id);
        await deletePricingVersion(tx, id);
        await writeAudit(tx, actor, { action: 'pricing_version.deleted', targetType: 'pricing_version', targetId: String(id), before: toPricingVersion(before), after: { reason } });
      });
      done(undefined);
    },
  };
}
export type AdminPricingService = ReturnType<typeof createAdminPricingService>;
