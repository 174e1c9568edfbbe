/**
 * Seeds what the admin screens read, at the scale the admin bench measures them on: 100,000 users, their
 * billing and corporate accounts, API keys, 1,000,000 usage events over the last 12 Japan-time
 * months with the daily aggregates the meter keeps, the invoices, lines and payments of the closed
 * months, and an audit log. Everything is generated in PostgreSQL (INSERT … SELECT over
 * generate_series), deterministic for a given size, in a few tens of seconds.
 *
 * The figures are self-consistent the way the server's own writes are: usage_daily and
 * usage_dataset_daily are aggregated from usage_events, and each closed month's invoice lines are
 * aggregated from the same events (base fees left out), so the revenue views agree with them.
 */
import type pg from 'pg';

export interface AdminSeedSize {
  users: number;
  usageEvents: number;
  /** Users who search (have keys and usage). */
  consumers: number;
  corporates: number;
  datasets: number;
  auditRows: number;
  /** Percent of users per account type (the rest are trial); default 2 % providers, 10 % corporate, 33 % individual. */
  mix?: { dataProvider: number; corporate: number; individual: number };
  /** Trial users get keys too (and may search free datasets). */
  trialKeys?: boolean;
}

export interface AdminSeedOptions {
  /**
   * Loads the usage events instead of the seed's own INSERT … SELECT (bench/usage-scale.ts COPYs
   * skewed ones): runs once users, accounts, datasets and keys exist; the aggregates, invoices and
   * audit rows are then built from what it loaded.
   */
  loadEvents?: () => Promise<unknown>;
  /** Invoices are seeded for the months before this 'YYYY-MM' only (default: the current Japan month), leaving later ones to the close. */
  invoicesBefore?: string;
}

export const ADMIN_SEED_DEFAULT: AdminSeedSize = {
  users: 100_000,
  usageEvents: 1_000_000,
  consumers: 8_000,
  corporates: 2_000,
  datasets: 40,
  auditRows: 200_000,
};

/**
 * The seed's own usage events (its users' e-mails are user<n>@example<m>.jp): a bench database
 * already holds the public API bench's events, whose aggregates the server wrote itself.
 */
const SEEDED_USERS = `email LIKE 'user%@example%.jp'`;
const SEEDED_EVENTS = `user_id IN (SELECT id FROM users WHERE ${SEEDED_USERS})`;

/** The admin the bench signs in as (a session row is inserted for it by the caller). */
export const SEED_ADMIN_EMAIL = 'admin-bench@example.jp';

// Mean Japanese names make the search realistic: prefixes shared by many users.
const FAMILY = ['佐藤', '鈴木', '高橋', '田中', '伊藤', '渡辺', '山本', '中村', '小林', '加藤', '吉田', '山田'];

export async function seedAdminData(pool: pg.Pool, size: AdminSeedSize = ADMIN_SEED_DEFAULT, options: AdminSeedOptions = {}): Promise<Record<string, number>> {
  const q = (text: string, values: unknown[] = []) => pool.query(text, values);
  const timings: Record<string, number> = {};
  const mix = size.mix ?? { dataProvider: 2, corporate: 10, individual: 33 };
  const step = async (name: string, run: () => Promise<unknown>) => {
    const t = performance.now();
    await run();
    timings[name] = Math.round(performance.now() - t);
  };

  // Version-4 shaped ids (as gen_random_uuid's), derived from a name so the seed is deterministic.
  await q(`CREATE OR REPLACE FUNCTION seed_uuid(t text) RETURNS uuid IMMUTABLE LANGUAGE sql
           AS $$ SELECT overlay(overlay(md5(t) PLACING '4' FROM 13) PLACING '8' FROM 17)::uuid $$`);

  await step('users', () =>
    q(
      `INSERT INTO users (id, email, display_name, role, account_type, status, created_at, updated_at, last_login_at, status_reason)
       SELECT seed_uuid('user' || n),
              CASE WHEN n = 1 THEN $2 ELSE 'user' || n || '@example' || (n % 50) || '.jp' END,
              ($3::text[])[1 + n % array_length($3::text[], 1)] || ' ' || '利用者' || n,
              CASE WHEN n <= 5 THEN 'admin' ELSE 'user' END,
              CASE WHEN n <= 5 THEN 'platform_admin'
                   WHEN n % 100 < $4::int THEN 'data_provider'
                   WHEN n % 100 < $4::int + $5::int THEN 'corporate'
                   WHEN n % 100 < $4::int + $5::int + $6::int THEN 'individual'
                   ELSE 'trial' END,
              CASE WHEN n > 5 AND n % 97 = 0 THEN 'suspended' ELSE 'active' END,
              now() - make_interval(mins => ((n::bigint * 7919) % (730 * 24 * 60))::int),
              now(),
              CASE WHEN n % 3 = 0 THEN NULL ELSE now() - make_interval(mins => ((n::bigint * 104729) % (90 * 24 * 60))::int) END,
              CASE WHEN n > 5 AND n % 97 = 0 THEN '利用規約違反の疑い' END
       FROM generate_series(1, $1::int) AS n`,
      [size.users, SEED_ADMIN_EMAIL, FAMILY, mix.dataProvider, mix.corporate, mix.individual],
    ),
  );

  await step('corporate accounts', async () => {
    await q(
      `INSERT INTO corporate_accounts (id, status, company_name, company_name_kana, postal_code, address, phone,
                                       billing_contact_name, billing_emails, payment_method, credit_limit_yen, created_at)
       SELECT seed_uuid('corp' || c),
              CASE WHEN c % 40 = 0 THEN 'pending' WHEN c % 53 = 0 THEN 'suspended' ELSE 'active' END,
              '株式会社テスト' || c, 'カブシキガイシャテスト' || c, '100-0001', '東京都千代田区千代田' || c, '03-0000-' || lpad((c % 10000)::text, 4, '0'),
              '経理 担当' || c, ARRAY['billing' || c || '@corp.example.jp'],
              CASE WHEN c % 3 = 0 THEN 'card' ELSE 'bank_transfer' END,
              CASE WHEN c % 3 = 0 THEN NULL ELSE 500000 END,
              now() - make_interval(days => c % 700)
       FROM generate_series(1, $1::int) AS c`,
      [size.corporates],
    );
    // Corporate users are members of the accounts, round robin; the first member is the owner.
    await q(
      `UPDATE users u SET corporate_account_id = seed_uuid('corp' || (1 + m.k % $1)),
                          corporate_role = CASE WHEN m.k < $1 THEN 'owner' WHEN m.k % 5 = 0 THEN 'billing' ELSE 'member' END
       FROM (SELECT id, (row_number() OVER (ORDER BY id)) - 1 AS k FROM users WHERE account_type = 'corporate') m
       WHERE u.id = m.id`,
      [size.corporates],
    );
  });

  // お客様番号: a unique 6-digit body and its check digit (weights 7,3,1; billing/customer-number.ts).
  const customerNumber = (body: string) =>
    `${body} || ((10 - ((7 * substr(${body}, 1, 1)::int + 3 * substr(${body}, 2, 1)::int + substr(${body}, 3, 1)::int
                      + 7 * substr(${body}, 4, 1)::int + 3 * substr(${body}, 5, 1)::int + substr(${body}, 6, 1)::int) % 10)) % 10)::text`;

  await step('billing accounts', async () => {
    await q(
      `INSERT INTO billing_accounts (id, kind, user_id, customer_number, addressee, honorific, billing_emails, payment_method,
                                     card_payment_method_id, card_brand, card_last4, card_exp_month, card_exp_year)
       SELECT seed_uuid('ba-user' || u.id), 'individual', u.id, ${customerNumber(`(100000 + k)::text`)},
              coalesce(u.display_name, u.email), '様', ARRAY[u.email],
              CASE WHEN k % 10 = 0 THEN 'bank_transfer' ELSE 'card' END,
              CASE WHEN k % 10 = 0 THEN NULL ELSE 'pm_seed_' || k END,
              CASE WHEN k % 10 = 0 THEN NULL ELSE 'visa' END,
              CASE WHEN k % 10 = 0 THEN NULL ELSE lpad((k % 10000)::text, 4, '0') END,
              CASE WHEN k % 10 = 0 THEN NULL ELSE 1 + k % 12 END,
              CASE WHEN k % 10 = 0 THEN NULL ELSE 2027 + k % 5 END
       FROM (SELECT id, email, display_name, row_number() OVER (ORDER BY id) AS k FROM users
             WHERE account_type IN ('individual', 'data_provider')) u
       ON CONFLICT DO NOTHING`,
    );
    await q(
      `INSERT INTO billing_accounts (id, kind, corporate_account_id, customer_number, addressee, honorific, billing_emails, payment_method)
       SELECT seed_uuid('ba-corp' || c.id), 'corporate', c.id, ${customerNumber(`(700000 + k)::text`)},
              c.company_name, '御中', c.billing_emails, c.payment_method
       FROM (SELECT id, company_name, billing_emails, payment_method, row_number() OVER (ORDER BY id) AS k
             FROM corporate_accounts WHERE status <> 'pending') c
       ON CONFLICT DO NOTHING`,
    );
  });

  await step('datasets', () =>
    q(
      `INSERT INTO datasets (id, name, description, price_per_search, is_platform_dataset, created_by, provider_user_id, assigned_user_id, search_text, created_at)
       SELECT seed_uuid('ds' || d), 'ベンチ用データセット' || d, '管理画面ベンチ用', ((d % 8) * 0.25)::numeric(10, 2),
              d % 4 = 0, p.id, CASE WHEN d % 4 = 0 THEN NULL ELSE p.id END, CASE WHEN d % 4 = 0 THEN NULL ELSE p.id END,
              'ベンチ用データセット' || d, now() - make_interval(days => d)
       FROM generate_series(1, $1::int) AS d
       JOIN LATERAL (SELECT id FROM users WHERE account_type = 'data_provider' ORDER BY id OFFSET d % 50 LIMIT 1) p ON true`,
      [size.datasets],
    ),
  );

  await step('api keys', () =>
    q(
      `INSERT INTO api_keys (id, user_id, name, key_hash, prefix, created_at)
       SELECT seed_uuid('key' || c.id), c.id, '本番キー', md5('keyhash' || c.id) || md5('keyhash2' || c.id), 'poi_' || substr(md5(c.id::text), 1, 8),
              now() - interval '400 days'
       FROM (SELECT id FROM users WHERE account_type = ANY($2::text[]) AND ${SEEDED_USERS} ORDER BY id LIMIT $1) c`,
      [size.consumers, ['individual', 'corporate', 'data_provider', ...(size.trialKeys ? ['trial'] : [])]],
    ),
  );

  // One current pricing version per account type is created by the migrations; events point at it.
  // A usage_events partitioned by Japan month (migration 0023) gets the partitions of the seeded
  // months first, as its job makes them ahead of time: rows would otherwise all go to its DEFAULT one.
  await step('usage partitions', async () => {
    if (!(await q(`SELECT to_regprocedure('usage_events_add_partition(date)') AS f`)).rows[0]?.f) return;
    await q(
      `SELECT usage_events_add_partition(m::date) FROM generate_series(date_trunc('month', now() AT TIME ZONE 'Asia/Tokyo') - interval '13 months',
                                                                       date_trunc('month', now() AT TIME ZONE 'Asia/Tokyo') + interval '1 month', interval '1 month') m`,
    );
  });

  await step('usage events', () =>
    options.loadEvents ? options.loadEvents() : q(
      `WITH c AS (SELECT k.id AS key_id, k.user_id, u.account_type, row_number() OVER (ORDER BY k.id) - 1 AS i
                  FROM api_keys k JOIN users u ON u.id = k.user_id),
            nc AS (SELECT count(*) AS n FROM c),
            pv AS (SELECT DISTINCT ON (account_type) account_type, id FROM pricing_versions ORDER BY account_type, effective_from DESC),
            ds AS (SELECT id, (price_per_search * 100)::int AS price_sen, coalesce(provider_user_id, '00000000-0000-0000-0000-000000000000') AS recipient,
                          row_number() OVER (ORDER BY id) - 1 AS j FROM datasets WHERE id IN (SELECT seed_uuid('ds' || d) FROM generate_series(1, $2::int) d)),
            nd AS (SELECT count(*) AS n FROM ds)
       INSERT INTO usage_events (request_id, occurred_at, user_id, api_key_id, account_type, pricing_version_id, dataset_ids,
                                 dataset_prices_sen, dataset_shares_bp, dataset_recipient_ids, base_fee_sen, amount_sen, free)
       SELECT seed_uuid('ev' || e),
              now() - make_interval(secs => ((e::bigint * 2654435761) % (365 * 86400))::int),
              c.user_id, c.key_id, c.account_type, pv.id, ARRAY[ds.id], ARRAY[ds.price_sen], ARRAY[7000], ARRAY[ds.recipient],
              CASE WHEN e % 4 = 0 THEN 0 ELSE 50 END,
              ds.price_sen + CASE WHEN e % 4 = 0 THEN 0 ELSE 50 END,
              e % 4 = 0
       FROM generate_series(1, $1::int) AS e
       CROSS JOIN nc CROSS JOIN nd
       JOIN c ON c.i = (e * 31) % nc.n
       JOIN ds ON ds.j = (e * 7) % nd.n
       JOIN pv ON pv.account_type = c.account_type
       ON CONFLICT DO NOTHING`,
      [size.usageEvents, size.datasets],
    ),
  );

  // One pass over the seeded events: what every rollup and invoice line below needs, per user,
  // Japanese day, key and priced dataset list (a few million rows for 20 M events, not 20 M).
  await step('usage aggregates', async () => {
    await q(
      `CREATE TEMP TABLE seed_usage AS
       SELECT e.user_id, (e.occurred_at AT TIME ZONE 'Asia/Tokyo')::date AS day, e.api_key_id, e.account_type, e.dataset_ids, e.dataset_prices_sen,
              e.dataset_shares_bp, e.dataset_recipient_ids, e.base_fee_sen, e.free, count(*) AS n, sum(e.amount_sen) AS amount_sen, max(e.occurred_at) AS last_at
       FROM usage_events e WHERE ${SEEDED_EVENTS.replaceAll('user_id', 'e.user_id')} GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10`,
    );
    // As the meter's flush aggregates them (usage.repository.ts writeUsageEvents): per user, Japanese day
    // and key; per dataset of each event (unnest), day, user and recipient.
    await q(
      `INSERT INTO usage_daily (user_id, day, api_key_id, searches, free_searches, amount_sen)
       SELECT user_id, day, api_key_id, sum(n), coalesce(sum(n) FILTER (WHERE free), 0), sum(amount_sen) FROM seed_usage GROUP BY 1, 2, 3`,
    );
    await q(
      `INSERT INTO usage_dataset_daily (dataset_id, day, user_id, recipient_id, searches, amount_sen, revenue_units)
       SELECT d.dataset_id, s.day, s.user_id, d.recipient_id, sum(s.n), sum(d.price_sen * s.n), sum(d.price_sen::bigint * d.share_bp * s.n)
       FROM seed_usage s
       CROSS JOIN LATERAL unnest(s.dataset_ids, s.dataset_prices_sen, s.dataset_shares_bp, s.dataset_recipient_ids) AS d(dataset_id, price_sen, share_bp, recipient_id)
       GROUP BY 1, 2, 3, 4`,
    );
    // The monthly rollups the close, the billing screen and budgets read (migration 0024), where they exist:
    // billable quantities per dataset and price, base fees under the zero dataset id; searches and the last account type.
    const monthly = (await q(`SELECT to_regclass('usage_charge_monthly') IS NOT NULL AS charge, to_regclass('usage_user_monthly') IS NOT NULL AS users`)).rows[0] as { charge: boolean; users: boolean };
    if (monthly.charge) {
      await q(
        `INSERT INTO usage_charge_monthly (year_month, user_id, dataset_id, unit_price_sen, searches)
         SELECT year_month, user_id, dataset_id, unit_price_sen, sum(n) FROM (
           SELECT to_char(s.day, 'YYYY-MM') AS year_month, s.user_id, d.dataset_id, d.price_sen AS unit_price_sen, s.n
           FROM seed_usage s CROSS JOIN LATERAL unnest(s.dataset_ids, s.dataset_prices_sen) AS d(dataset_id, price_sen)
           WHERE d.price_sen > 0
           UNION ALL
           SELECT to_char(day, 'YYYY-MM'), user_id, '00000000-0000-0000-0000-000000000000'::uuid, base_fee_sen, n
           FROM seed_usage WHERE NOT free AND base_fee_sen > 0) c
         GROUP BY 1, 2, 3, 4`,
      );
    }
    if (monthly.users) {
      await q(
        `INSERT INTO usage_user_monthly (year_month, user_id, searches, last_occurred_at, last_account_type)
         SELECT to_char(day, 'YYYY-MM'), user_id, sum(n), max(last_at), (array_agg(account_type ORDER BY last_at DESC))[1]
         FROM seed_usage GROUP BY 1, 2`,
      );
    }
    // The platform-wide rollups the admin revenue screens and dashboard read (migration 0025), where they exist:
    // the per-user rollups just filled, summed over their consumers (empty before it, as the others: the usage bench drops their keys until its load is in).
    const platform = (await q(`SELECT to_regclass('usage_platform_dataset_daily') IS NOT NULL AS datasets, to_regclass('usage_platform_daily') IS NOT NULL AS days`)).rows[0] as { datasets: boolean; days: boolean };
    if (platform.datasets) {
      await q(
        `INSERT INTO usage_platform_dataset_daily (day, recipient_id, dataset_id, searches, amount_sen, revenue_units)
         SELECT day, recipient_id, dataset_id, sum(searches), sum(amount_sen), sum(revenue_units) FROM usage_dataset_daily GROUP BY 1, 2, 3`,
      );
    }
    if (platform.days) {
      await q(
        `INSERT INTO usage_platform_daily (day, searches, free_searches, amount_sen)
         SELECT day, sum(searches), sum(free_searches), sum(amount_sen) FROM usage_daily GROUP BY 1`,
      );
    }
  });

  // Invoices of the closed months: one per billing account and month with usage, lines per dataset
  // and price from the same events, a base-fee line, tax once. Paid, open or overdue by a rule.
  if (options.invoicesBefore && !/^\d{4}-\d{2}$/.test(options.invoicesBefore)) throw new Error(`invoicesBefore: ${options.invoicesBefore} is not YYYY-MM`);
  const invoicesBefore = options.invoicesBefore ? `'${options.invoicesBefore}-01'::date` : `date_trunc('month', now() AT TIME ZONE 'Asia/Tokyo')::date`;
  await step('invoices', async () => {
    // The tables kept by triggers on invoices and their lines (migrations 0025, 0026) would be
    // upserted once per line and invoice, on a few thousand rows, all in one statement: each row's
    // versions pile up until the commit and every upsert walks them (hours at 100 k users). The
    // load runs without triggers (the seed's own connection) and those tables are summed after.
    await q('SET session_replication_role = replica');
    await q(
      `CREATE TEMP TABLE seed_lines AS
       SELECT coalesce(bu.id, bc.id) AS billing_account_id, coalesce(bu.payment_method, bc.payment_method) AS payment_method,
              to_char(s.day, 'YYYY-MM') AS ym, s.dataset_ids[1] AS dataset_id,
              s.dataset_prices_sen[1] AS price_sen, sum(s.n) AS qty, coalesce(sum(s.n) FILTER (WHERE NOT s.free), 0) AS paid_qty,
              coalesce(sum(s.base_fee_sen * s.n) FILTER (WHERE NOT s.free), 0) AS base_sen
       FROM seed_usage s JOIN users u ON u.id = s.user_id
       LEFT JOIN billing_accounts bu ON bu.user_id = u.id
       LEFT JOIN billing_accounts bc ON bc.corporate_account_id = u.corporate_account_id
       WHERE coalesce(bu.id, bc.id) IS NOT NULL AND s.day < ${invoicesBefore}
       GROUP BY 1, 2, 3, 4, 5`,
    );
    await q(
      `INSERT INTO invoices (id, billing_account_id, year_month, number, status, period_start, period_end, issue_date, due_date,
                             subtotal_yen, tax_yen, total_yen, paid_yen, payment_method, issuer_snapshot, recipient_snapshot, issued_at, paid_at)
       SELECT seed_uuid('inv' || t.billing_account_id || t.ym), t.billing_account_id, t.ym,
              NULL, st.status, t.ym_start, (t.ym_start + interval '1 month - 1 day')::date, (t.ym_start + interval '1 month')::date,
              (t.ym_start + interval '2 months - 1 day')::date,
              t.subtotal, t.subtotal / 10, t.subtotal + t.subtotal / 10,
              CASE WHEN st.status = 'paid' THEN t.subtotal + t.subtotal / 10 ELSE 0 END,
              t.payment_method, '{"name":"POI Cloud"}'::jsonb, '{"addressee":"seed"}'::jsonb,
              t.ym_start + interval '1 month', CASE WHEN st.status = 'paid' THEN t.ym_start + interval '1 month 3 days' END
       FROM (SELECT billing_account_id, payment_method, ym, to_date(ym || '-01', 'YYYY-MM-DD') AS ym_start,
                    (sum(floor(qty * price_sen / 100.0)) + floor(sum(base_sen) / 100.0))::bigint AS subtotal
             FROM seed_lines GROUP BY 1, 2, 3) t
       CROSS JOIN LATERAL (SELECT CASE WHEN t.ym_start < date_trunc('month', now())::date - interval '2 months' THEN 'paid'
                                       WHEN abs(hashtext(t.billing_account_id::text || t.ym)) % 10 = 0 THEN 'overdue'
                                       WHEN abs(hashtext(t.billing_account_id::text || t.ym)) % 3 = 0 THEN 'issued'
                                       ELSE 'paid' END AS status) st
       WHERE t.subtotal > 0`,
    );
    await q(
      `INSERT INTO invoice_lines (invoice_id, position, kind, dataset_id, description, quantity, unit_price_sen, amount_yen)
       SELECT seed_uuid('inv' || billing_account_id || ym), row_number() OVER (PARTITION BY billing_account_id, ym ORDER BY dataset_id, price_sen),
              'dataset', dataset_id, 'データセット検索', qty, price_sen, floor(qty * price_sen / 100.0)::bigint
       FROM seed_lines s WHERE EXISTS (SELECT 1 FROM invoices i WHERE i.id = seed_uuid('inv' || s.billing_account_id || s.ym))`,
    );
    await q(
      `INSERT INTO invoice_lines (invoice_id, position, kind, description, quantity, unit_price_sen, amount_yen)
       SELECT i.id, 1000, 'base_fee', '基本料金', l.paid_qty, l.base_sen / l.paid_qty, floor(l.base_sen / 100.0)::bigint
       FROM invoices i JOIN (SELECT billing_account_id, ym, sum(paid_qty) AS paid_qty, sum(base_sen) AS base_sen FROM seed_lines GROUP BY 1, 2) l
         ON i.billing_account_id = l.billing_account_id AND i.year_month = l.ym
       WHERE l.base_sen > 0`,
    );
    // Numbered last: lines of a numbered (issued) invoice are immutable (the 0008 trigger).
    await q(
      `UPDATE invoices i SET number = n.number
       FROM (SELECT id, 'POI-' || replace(year_month, '-', '') || '-' || lpad((row_number() OVER (PARTITION BY year_month ORDER BY billing_account_id))::text, 6, '0') AS number
             FROM invoices WHERE number IS NULL) n
       WHERE i.id = n.id`,
    );
    await q(
      `INSERT INTO payments (invoice_id, billing_account_id, method, amount_yen, received_on, receipt_number, created_at)
       SELECT id, billing_account_id, payment_method, total_yen, paid_at::date,
              'R-' || replace(year_month, '-', '') || '-' || lpad((row_number() OVER (PARTITION BY year_month ORDER BY id))::text, 6, '0'), paid_at
       FROM invoices WHERE status = 'paid'`,
    );
    // The numbers used above advance the gap-free counters, so that the server's own monthly close
    // (which runs on start and closes any month the seed left without an invoice) numbers after them.
    await q(
      `INSERT INTO number_counters (series, last_number)
       SELECT 'invoice:' || replace(year_month, '-', ''), max(substr(number, 12)::int) FROM invoices WHERE number LIKE 'POI-%' GROUP BY year_month
       UNION ALL
       SELECT 'receipt:' || substr(receipt_number, 3, 6), max(substr(receipt_number, 10)::int) FROM payments WHERE receipt_number LIKE 'R-%' GROUP BY 1
       ON CONFLICT (series) DO UPDATE SET last_number = greatest(number_counters.last_number, excluded.last_number)`,
    );
    await q('DROP TABLE seed_lines');
    await q('DROP TABLE seed_usage');
    await q('RESET session_replication_role');
    await rebuildInvoiceRollups(q);
  });

  await step('audit log', () =>
    q(
      `INSERT INTO audit_logs (occurred_at, actor_id, actor_email, action, target_type, target_id, before, after, ip, request_id)
       SELECT now() - make_interval(mins => (a * 37) % (365 * 24 * 60)),
              CASE WHEN a % 5 = 0 THEN NULL ELSE seed_uuid('user' || (1 + a % 5)) END,
              CASE WHEN a % 5 = 0 THEN NULL ELSE 'user' || (1 + a % 5) || '@example' || ((1 + a % 5) % 50) || '.jp' END,
              (ARRAY['user.suspend', 'user.activate', 'user.change_type', 'invoice.issue', 'payment.record', 'corporate.update', 'pricing.create'])[1 + a % 7],
              (ARRAY['user', 'user', 'user', 'invoice', 'invoice', 'corporate_account', 'pricing_version'])[1 + a % 7],
              CASE WHEN a % 7 < 3 THEN seed_uuid('user' || (1 + a % $2))::text ELSE seed_uuid('t' || a)::text END,
              '{"status":"active"}'::jsonb, '{"status":"suspended"}'::jsonb, '127.0.0.1', 'req-' || a
       FROM generate_series(1, $1::int) AS a`,
      [size.auditRows, size.users],
    ),
  );

  await q('DROP FUNCTION seed_uuid(text)');
  // As autovacuum leaves tables that are rarely written: visibility maps let the covering indexes answer alone.
  await step('vacuum analyze', () => q('VACUUM ANALYZE'));
  return timings;
}

/**
 * The tables the invoice triggers keep (migration 0025's invoice_dataset_monthly, 0026's
 * invoice_figures_monthly), summed from the invoices as those migrations back-fill them: for a load
 * that ran without triggers. A table an older schema lacks is left alone.
 */
async function rebuildInvoiceRollups(q: (text: string) => Promise<unknown>) {
  const has = async (table: string) => ((await q(`SELECT to_regclass('${table}') IS NOT NULL AS t`)) as { rows: Array<{ t: boolean }> }).rows[0]?.t;
  if (await has('invoice_dataset_monthly')) {
    await q('DELETE FROM invoice_dataset_monthly');
    await q(
      `INSERT INTO invoice_dataset_monthly (year_month, dataset_id, billed_yen, lines)
       SELECT i.year_month, l.dataset_id, sum(l.amount_yen), count(*)
       FROM invoice_lines l JOIN invoices i ON i.id = l.invoice_id
       WHERE i.kind = 'monthly' AND i.status NOT IN ('draft', 'void') AND l.kind = 'dataset' AND l.dataset_id IS NOT NULL
       GROUP BY 1, 2`,
    );
  }
  if (await has('invoice_figures_monthly')) {
    await q('DELETE FROM invoice_figures_monthly');
    await q(
      `INSERT INTO invoice_figures_monthly (year_month, shard, invoices, billed_yen, tax_yen, total_yen, collected_yen, credited_yen, outstanding_yen)
       SELECT year_month, (abs(hashtext(id::text)) % 16)::smallint, count(*), sum(subtotal_yen), sum(tax_yen), sum(total_yen),
              sum(paid_yen + credit_applied_yen), sum(credited_yen),
              coalesce(sum(greatest(total_yen - credit_applied_yen - paid_yen - credited_yen, 0)) FILTER (WHERE status IN ('issued', 'partially_paid', 'overdue')), 0)
       FROM invoices WHERE kind = 'monthly' AND status NOT IN ('draft', 'void')
       GROUP BY 1, 2`,
    );
  }
}
