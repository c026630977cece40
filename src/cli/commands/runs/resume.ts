import { defineControl, invokeControl } from './control.js';

export const define = defineControl('Resume a paused run.');
export const invoke = invokeControl('resume');
