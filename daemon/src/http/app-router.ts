import { SAC_VERSION } from '../version.js';
import { publicProcedure, router } from './trpc.js';

/** Services the tRPC routers call; each feature adds what its router needs. */
export interface RouterDeps {
  storeKind: 'sqlite' | 'mongodb';
}

/** The console's whole API. Routers are plural nouns, procedures verbs. */
export function createAppRouter(deps: RouterDeps) {
  return router({
    system: router({
      info: publicProcedure.query(() => ({ version: SAC_VERSION, store: deps.storeKind })),
    }),
  });
}

/** The router's type, imported (type only) by the console's tRPC client. */
export type AppRouter = ReturnType<typeof createAppRouter>;
