import express from 'express';
import { z } from 'zod';
import { type Authenticator, parseInput, requireUser, restActor, sendJson } from '../http/index.js';
import type { SettingsService } from './settings.service.js';

const Values = z.record(z.string(), z.unknown());

/** Settings for provisioning scripts (admin): `GET /api/v1/settings`, `GET|PATCH /api/v1/settings/{category}`. */
export function createSettingsRoutes(settings: SettingsService, authenticator: Authenticator): express.Router {
  const r = express.Router();
  const admin = requireUser(authenticator, 'admin');
  r.get('/api/v1/settings', admin, async (_req, res) => {
    sendJson(res, 200, { settings: await settings.viewAll() });
  });
  r.get('/api/v1/settings/:category', admin, async (req, res) => {
    sendJson(res, 200, await settings.view(String(req.params.category)));
  });
  r.patch('/api/v1/settings/:category', admin, async (req, res) => {
    sendJson(res, 200, await settings.update(String(req.params.category), parseInput(Values, req.body), restActor(req, res)));
  });
  return r;
}
