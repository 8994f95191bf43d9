import { z } from 'zod';
import { SettingsUpdateSchema } from '../../../shared/src/index.js';
import { defineOperation } from '../http/index.js';
import type { SettingsService } from './settings.service.js';

/** Any name: an unknown category is a 404 (`settings/unknown_category`), as for a record that is not there. */
const ByCategory = z.strictObject({ category: z.string().min(1).max(64) });
const Category = z.looseObject({ category: z.string(), values: z.record(z.string(), z.unknown()), stored_fields: z.array(z.string()) });

/** Settings (admin; also for provisioning scripts): every category with secrets masked, one category, change fields, reset to environment/defaults. */
export function settingsOperations(settings: SettingsService) {
  return [
    defineOperation({
      id: 'settings.list',
      summary: 'All settings (secrets masked)',
      role: 'admin',
      method: 'GET',
      path: '/api/v1/settings',
      envelope: 'settings',
      output: z.array(Category),
      handler: () => settings.viewAll(),
    }),
    defineOperation({
      id: 'settings.get',
      summary: 'One settings category',
      role: 'admin',
      method: 'GET',
      path: '/api/v1/settings/{category}',
      input: ByCategory,
      output: Category,
      handler: (input) => settings.view(input.category),
    }),
    defineOperation({
      id: 'settings.update',
      summary: 'Change fields of a settings category',
      role: 'admin',
      method: 'PATCH',
      path: '/api/v1/settings/{category}',
      restBody: 'values',
      input: ByCategory.extend({ values: SettingsUpdateSchema.shape.values }),
      output: Category,
      handler: (input, caller) => settings.update(input.category, input.values, caller),
    }),
    defineOperation({
      id: 'settings.reset',
      summary: 'Reset fields of a settings category (or all) to the environment or the defaults',
      role: 'admin',
      method: 'POST',
      input: ByCategory.extend({ fields: z.array(z.string().min(1).max(64)).optional() }),
      output: Category,
      handler: (input, caller) => settings.reset(input.category, input.fields, caller),
    }),
  ];
}
