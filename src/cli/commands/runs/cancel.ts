import { defineControl, invokeControl } from './control.js';

export const define = defineControl('Cancel a run (queued, running or paused); its worker stops it.');
export const invoke = invokeControl('cancel');
