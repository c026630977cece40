import { deviceId } from '../runs/resolve.js';
import { deleteVerb } from '../delete-verbs.js';
import { deviceArgument } from './get.js';

/** `svc devices delete DEVICE`: `DELETE /devices/{device_id}` (soft). */
export const { define, invoke } = deleteVerb({
  noun: 'device',
  collection: '/devices',
  idOf: deviceId,
  description: 'Soft-delete a device (restorable through the API).',
  argument: deviceArgument,
});
