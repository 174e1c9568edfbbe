import type { Commerce } from '@poi/shared/schemas/commerce';
import type { Config } from '../../config';

/** The required items of the 特定商取引法に基づく表記 and the setting that configures each. */
const REQUIRED: Array<[keyof Config['issuer'], string]> = [
  ['name', 'ISSUER_NAME'],
  ['representative', 'ISSUER_REPRESENTATIVE'],
  ['address', 'ISSUER_ADDRESS'],
  ['phone', 'ISSUER_PHONE'],
  ['email', 'ISSUER_EMAIL'],
];

/** The bank account as one line to show (name, branch, type, number, holder), or null. */
export function bankAccountLine(bank: Config['bank']): string | null {
  return bank ? `${bank.name} ${bank.branch} ${bank.accountType} ${bank.accountNumber} ${bank.holder}` : null;
}

/**
 * GET /console/v1/commerce (docs/billing.md "Legal notice: /commerce"): the configured items; `missing` names the
 * settings (ISSUER_*) of required items not configured, and complete is false while any is.
 */
export function commerceOf(config: Pick<Config, 'issuer' | 'bank'>): Commerce {
  const i = config.issuer;
  const missing = REQUIRED.filter(([key]) => !i[key]?.trim()).map(([, env]) => env);
  return {
    complete: missing.length === 0,
    missing,
    seller: i.name ?? null,
    representative: i.representative ?? null,
    address: i.address ?? null,
    phone: i.phone ?? null,
    phone_hours: i.phoneHours ?? null,
    email: i.email ?? null,
    registration_number: i.registrationNumber ?? null,
    bank_account: bankAccountLine(config.bank),
  };
}
