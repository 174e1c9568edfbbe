import { defineConfig, devices } from '@playwright/test';
import { E2E_BASE_URL } from './e2e/support/env';

// Debian's Chromium: Playwright's own browser download does not work on these machines.
//
// Headless Chromium preloads two omnibox pop-ups (chrome://omnibox-popup.top-chrome) in every new
// window, that is for every test's browser context: a renderer of their own that cost 8 % of the
// accessibility spec's CPU. They are turned off as features. Chromium keeps only the last
// --disable-features switch, so ours repeats the list Playwright passes (1.65) before adding the
// pop-ups; shell.spec checks in chrome://version that every feature of both lists is off.
export const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];
export const OWN_DISABLED_FEATURES = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'];

const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...OWN_DISABLED_FEATURES].join(',')}`,
];

export default defineConfig({
  testDir: './e2e',
  outputDir: './e2e/.artifacts/results',
  globalSetup: './e2e/support/global-setup.ts',
  fullyParallel: false,
  // Three browsers on two cores: with two, a quarter of the CPU stayed idle (tests waiting for the
  // network to settle, for a screen's refresh interval, for servers started on a faked clock);
  // three took the suite from 232 s to 209 s on one machine.
  workers: 3,
  // No retries, on CI either: a test that passes only on its second try is a defect to fix (a wait
  // on the wrong thing, a race in the screen), not something to hide.
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  use: {
    baseURL: E2E_BASE_URL,
    locale: 'ja-JP',
    timezoneId: 'Asia/Tokyo',
    // A trace records every action's snapshots (CI's browser suite took 13.5 min with them, 9.2
    // without, on one machine), and CI's traces are thrown away with its clone: CI runs without
    // them. Locally they are kept for a failed test.
    trace: process.env.CI ? 'off' : 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: { executablePath: '/usr/bin/chromium', args: chromiumArgs },
  },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'], channel: undefined } }],
});
