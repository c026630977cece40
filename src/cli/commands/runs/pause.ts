import { defineControl, invokeControl } from './control.js';

export const define = defineControl('Pause a run (queued or running): it is not started, or its worker holds it.');
export const invoke = invokeControl('pause');
