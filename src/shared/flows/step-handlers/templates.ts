/** `{{ … }}` templates are rendered at run time; the validator only recognises them. */

const ANY_TEMPLATE = /\{\{[\s\S]*?\}\}/;
// One template and nothing around it: `{{ inputs.port }}`, not `{{ a }}{{ b }}` nor `port {{ a }}`.
const WHOLE_TEMPLATE = /^\{\{(?:(?!\{\{|\}\})[\s\S])*\S(?:(?!\{\{|\}\})[\s\S])*\}\}$/;

export function hasTemplate(value: string): boolean {
  return ANY_TEMPLATE.test(value);
}

/** A string standing for a whole value of another type (an integer, a boolean, a list) once rendered. */
export function isWholeTemplate(value: unknown): boolean {
  return typeof value === 'string' && WHOLE_TEMPLATE.test(value);
}
