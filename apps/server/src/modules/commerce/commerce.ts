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

/** The BANK_* variables a bank account needs (BANK_ACCOUNT_TYPE defaults to 普通). */
const BANK_REQUIRED = ['BANK_NAME', 'BANK_BRANCH', 'BANK_ACCOUNT_NUMBER', 'BANK_ACCOUNT_HOLDER'];

/**
 * Every setting production should have and lacks, in the order the start-up warning and the admin
 * dashboard name them: the notice's required ISSUER_* items, ISSUER_REGISTRATION_NUMBER (invoices
 * are 適格請求書 only with it) and the unset BANK_* variables (no bank transfer without them).
 */
export function launchSettingGaps(config: Pick<Config, 'issuer' | 'bank' | 'bankUnset'>): string[] {
  return [...missingRequired(config.issuer), ...missingRegistration(config), ...missingBank(config)];
}

function missingRequired(issuer: Config['issuer']): string[] {
  return REQUIRED.filter(([key]) => !issuer[key]?.trim()).map(([, env]) => env);
}

function missingRegistration(config: Pick<Config, 'issuer'>): string[] {
  return config.issuer.registrationNumber ? [] : ['ISSUER_REGISTRATION_NUMBER'];
}

/** The unset BANK_* variables; all the required ones when the configuration does not say which. */
export function missingBank(config: Pick<Config, 'bank' | 'bankUnset'>): string[] {
  if (config.bank) return [];
  return config.bankUnset?.length ? config.bankUnset : BANK_REQUIRED;
}

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
  const missing = missingRequired(i);
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
