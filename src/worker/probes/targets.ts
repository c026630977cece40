import type { Assignment } from '../../shared/api/workers.js';

/** One device of the run's targets, as a probe reaches it. */
export interface ProbeTarget {
  readonly deviceId: string;
  /** The device's name; its id when the daemon did not say (deleted since the run was admitted). */
  readonly name: string;
  /** The management address (`hostname`: an IP address or a DNS name); null when the device has none or is gone. */
  readonly host: string | null;
  /** Why `host` is null: the device has no address, or it is no longer a live device. */
  readonly missing?: 'no_address' | 'device_not_found';
}

/**
 * Every device the run names, all roles together, once each in the order first named, with the address
 * the assignment's `target_devices` gives it. A probe checks each; one it cannot reach for want of an
 * address fails with that reason rather than being skipped.
 */
export function probeTargets(run: Pick<Assignment, 'targets' | 'target_devices'>): ProbeTarget[] {
  const ids = [...new Set(Object.values(run.targets).flat())];
  return ids.map((deviceId) => {
    const device = run.target_devices?.[deviceId];
    if (!device) return { deviceId, name: deviceId, host: null, missing: 'device_not_found' };
    if (!device.hostname) return { deviceId, name: device.name, host: null, missing: 'no_address' };
    return { deviceId, name: device.name, host: device.hostname };
  });
}
