import { defineSwitch, invokeSwitch } from './switch.js';

export const define = defineSwitch('Pause a schedule: it does not fire until resumed.');
export const invoke = invokeSwitch(false);
