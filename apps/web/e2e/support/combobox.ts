import { expect, type Locator, type Page } from '@playwright/test';

/**
 * Picks an option of a searchable combobox (DatasetPicker, the provider pickers): types `search`
 * into it, waits for the server's suggestions and clicks the option named `option`.
 */
export async function pickOption(scope: Page | Locator, label: string, search: string, option: string | RegExp) {
  const box = scope.getByRole('combobox', { name: label });
  // Emptied first: typing the name it already shows would change nothing, so search nothing.
  await box.fill('');
  await box.fill(search);
  const choice = scope.getByRole('listbox').getByRole('option', { name: option });
  await expect(choice).toBeVisible();
  await choice.click();
  await expect(box).toHaveAttribute('aria-expanded', 'false');
}
