import { z } from 'zod';
import { SETTINGS_CATEGORIES, SettingsUpdateSchema, type SettingsCategory } from '../../../shared/src/index.js';
import type { SettingsService } from './settings.service.js';
import { adminProcedure, router } from '../http/index.js';

const Category = z.enum(SETTINGS_CATEGORIES as [SettingsCategory, ...SettingsCategory[]]);

/** tRPC `settings.*` (admin): every category masked, one category, update, reset to environment/defaults. */
export function settingsRouter(settings: SettingsService) {
  return router({
    list: adminProcedure.query(() => settings.viewAll()),
    get: adminProcedure.input(z.strictObject({ category: Category })).query(({ input }) => settings.view(input.category)),
    update: adminProcedure.input(SettingsUpdateSchema).mutation(({ input, ctx }) => settings.update(input.category, input.values, ctx)),
    reset: adminProcedure
      .input(z.strictObject({ category: Category, fields: z.array(z.string().min(1).max(64)).optional() }))
      .mutation(({ input, ctx }) => settings.reset(input.category, input.fields, ctx)),
  });
}
