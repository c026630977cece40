import { defineSwitch, invokeSwitch } from './switch.js';

export const define = defineSwitch('Resume a paused schedule: it fires from its next fire time after now (missed ones are not caught up).');
export const invoke = invokeSwitch(true);
