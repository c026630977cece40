import { describe, expect, it } from 'vitest';
import {
  narrowedFields,
  STEP_HANDLERS,
  STRING_FORMATS,
  type HandlerField,
  type StepHandler,
  type StringFormat,
} from '../src/shared/flows/step-handlers/index.js';
import { keyValueMap, stripReservedKeys, validateStepConfig, type StepIssue } from '../src/shared/flows/step-validator.js';

/**
 * The cases are generated from the catalogue, so a field added there is covered here: every field gets a
 * value of the wrong type, every enum a value outside it, every bound a value past it, every format a
 * malformed value; every handler a valid configuration.
 */

const BASE = 'steps[3].config';
const at = (key: string) => `${BASE}.${key}`;
const codes = (issues: StepIssue[]) => issues.map((i) => `${i.code} ${i.path}`);

const GOOD: Record<StringFormat, string> = {
  uuid: '3f0c9a52-6d0e-4c8e-9a43-0d5f1c2b7e11',
  http_url: 'https://files.example.test/images/os-17.2.bin',
  memory_size: '512m',
  cpu_count: '0.5',
  absolute_path: '/work/out',
  egress_rule: '10.0.0.0/8:443/tcp',
  mount_spec: '/srv/data:/data:ro',
  pid_mode: 'host',
  duration: '5m',
  status_ranges: '200-299,404',
  socks5_url: 'socks5h://user:pass@proxy.example.test:1080',
  md5: 'd41d8cd98f00b204e9800998ecf8427e',
  secret_ref: 'vault://orgs/acme/secrets/db/password',
};

const BAD: Record<StringFormat, string[]> = {
  uuid: ['not-a-uuid'],
  http_url: ['ftp://files.example.test/os.bin', 'files.example.test/os.bin'],
  memory_size: ['lots', '0m'],
  cpu_count: ['two', '0'],
  absolute_path: ['relative/out'],
  egress_rule: ['10.0.0.0/33', '10.0.0.0/8:70000', 'example.test', '10.0.0.0/8:443-80', '999.0.0.0/8'],
  mount_spec: ['data:/data', '/a:b', '/a:/b:ro:extra'],
  pid_mode: ['sibling', 'container:'],
  duration: ['5 minutes', '300'],
  status_ranges: ['200-99', '2xx', '99'],
  socks5_url: ['http://proxy.example.test:1080', 'socks5://proxy.example.test'],
  md5: ['xyz'],
  secret_ref: ['hunter2'],
};

/** A valid value of each field, not its default where there is a choice. */
function sample(field: HandlerField): unknown {
  switch (field.type) {
    case 'string':
      if (field.enum) return field.enum[field.enum.length - 1];
      return field.format ? GOOD[field.format] : 'text';
    case 'integer':
    case 'number':
      return field.max ?? (field.min !== undefined ? field.min + 1 : 7);
    case 'boolean':
      return field.default !== true;
    case 'enum':
      return field.enum![field.enum!.length - 1];
    case 'string[]':
      return [field.itemEnum?.[0] ?? (field.format ? GOOD[field.format] : 'item')];
    case 'object':
      if (field.entries) return { child_field: { mode: field.entries.modes[0] } };
      if (field.groupedKeys) return { 'routers:ENABLE_SECRET': GOOD.secret_ref };
      return { NAME: field.secretValues ? GOOD.secret_ref : 'value' };
    case 'object|null':
      if (field.variants?.[0] === 'integer') return field.min ?? 1;
      if (field.variants?.[0] === 'string') return 'nightly';
      if (field.variants?.[0] === 'string[]') return ['/bin/sh'];
      return ['configs/'];
  }
}

/** What a field must refuse because of its type alone, with the code expected (and where, below the field). */
function wrongTypes(field: HandlerField): [unknown, string, string?][] {
  switch (field.type) {
    case 'string':
      return [
        [42, 'wrong_type'],
        [true, 'wrong_type'],
        [null, 'wrong_type'],
      ];
    case 'integer':
      return [
        ['ten', 'wrong_type'],
        [1.5, 'wrong_type'],
        ['5', 'wrong_type'],
        ['{{ a }} {{ b }}', 'wrong_type'],
        [null, 'wrong_type'],
      ];
    case 'number':
      return [
        ['ten', 'wrong_type'],
        [false, 'wrong_type'],
      ];
    case 'boolean':
      return [
        ['yes', 'wrong_type'],
        [1, 'wrong_type'],
        [null, 'wrong_type'],
      ];
    case 'enum':
      return [
        [5, 'wrong_type'],
        ['not-a-choice', 'not_in_enum'],
      ];
    case 'string[]':
      return [
        ['one item', 'wrong_type'],
        [{}, 'wrong_type'],
        [[1], 'wrong_type', '[0]'],
      ];
    case 'object':
      return field.keyValue
        ? [
            [['A=1'], 'wrong_type'],
            [7, 'wrong_type'],
          ]
        : [
            [[], 'wrong_type'],
            ['A=1', 'wrong_type'],
            [null, 'wrong_type'],
          ];
    case 'object|null':
      return field.variants ? [[{ nested: true }, 'wrong_type']] : [];
  }
}

const checked = STEP_HANDLERS.filter((h) => !h.openConfig);

/** Required fields filled, plus what a handler's cross-field rules need to pass. */
function minimal(handler: StepHandler): Record<string, unknown> {
  const config: Record<string, unknown> = Object.fromEntries(handler.fields.filter((f) => f.required).map((f) => [f.key, sample(f)]));
  if (handler.id === 'flow.run') config.flow_name = 'nightly-backup';
  return config;
}

/** Every field set to a valid value, minus the combinations the cross-field rules refuse. */
function full(handler: StepHandler): Record<string, unknown> {
  const config: Record<string, unknown> = Object.fromEntries(handler.fields.map((f) => [f.key, sample(f)]));
  if (handler.id === 'container.run') for (const key of ['egress_mode', 'egress_allow', 'egress_deny']) delete config[key];
  if (handler.id === 'flow.run') delete config.flow_name;
  if (handler.id === 'netos.upgrade.stage') delete config.source_url;
  if (handler.id === 'shell.execute') config.shell = 'bash';
  if (handler.id === 'monitor.connectivity' || handler.id === 'probe.connectivity') config.check_type = 'tcp_connect';
  if (handler.id === 'iac.plan') Object.assign(config, { engine: 'opentofu', state: 'backend' });
  return config;
}

describe('validateStepConfig accepts', () => {
  it.each(checked.map((h) => [h.id, h] as const))('a minimal valid configuration of %s', (_, handler) => {
    expect(validateStepConfig(handler.id, minimal(handler), BASE)).toEqual([]);
  });

  it.each(checked.map((h) => [h.id, h] as const))('every field of %s set to a valid value', (_, handler) => {
    expect(validateStepConfig(handler.id, full(handler), BASE)).toEqual([]);
  });

  it.each(checked.map((h) => [h.id, h] as const))('every field of %s at its default', (_, handler) => {
    const defaults = Object.fromEntries(handler.fields.filter((f) => f.default !== undefined).map((f) => [f.key, f.default]));
    expect(validateStepConfig(handler.id, { ...defaults, ...minimal(handler) }, BASE)).toEqual([]);
  });

  it('any configuration of the internal handlers, which the spec gives no fields', () => {
    for (const id of ['flow.git_sync', 'general.noop', 'monitor.start', 'monitor.stop']) {
      expect(validateStepConfig(id, { repository: 'x', anything: [1] }, BASE)).toEqual([]);
      expect(codes(validateStepConfig(id, 'x', BASE))).toEqual([`wrong_type ${BASE}`]);
    }
  });

  it('an absent configuration as an empty one', () => {
    expect(validateStepConfig('general.sleep', undefined, BASE)).toEqual([]);
    expect(codes(validateStepConfig('container.run', undefined, BASE))).toEqual([`missing_required ${at('image')}`]);
  });
});

const fields = checked.flatMap((h) => h.fields.map((f) => [`${h.id}.${f.key}`, h, f] as const));

describe('validateStepConfig refuses, per field', () => {
  it.each(fields)('%s: values of the wrong type', (_, handler, field) => {
    for (const [value, code, below = ''] of wrongTypes(field)) {
      const issues = validateStepConfig(handler.id, { ...minimal(handler), [field.key]: value }, BASE);
      expect(codes(issues), JSON.stringify(value)).toContain(`${code} ${at(field.key)}${below}`);
    }
  });

  it.each(fields.filter(([, , f]) => f.enum))('%s: a value outside its enum', (_, handler, field) => {
    expect(codes(validateStepConfig(handler.id, { ...minimal(handler), [field.key]: 'definitely-not' }, BASE))).toContain(
      `not_in_enum ${at(field.key)}`,
    );
  });

  it.each(fields.filter(([, , f]) => f.itemEnum))('%s: a list item outside its enum', (_, handler, field) => {
    expect(codes(validateStepConfig(handler.id, { ...minimal(handler), [field.key]: ['role', 'colour'] }, BASE))).toEqual([
      `not_in_enum ${at(field.key)}[1]`,
    ]);
  });

  it.each(fields.filter(([, , f]) => f.min !== undefined && !f.clamped))('%s: a value below its minimum', (_, handler, field) => {
    const issues = validateStepConfig(handler.id, { ...minimal(handler), [field.key]: field.min! - 1 }, BASE);
    expect(codes(issues)).toEqual([`out_of_range ${at(field.key)}`]);
    expect(validateStepConfig(handler.id, { ...minimal(handler), [field.key]: field.min! }, BASE)).toEqual([]);
  });

  it.each(fields.filter(([, , f]) => f.max !== undefined && !f.clamped))('%s: a value above its maximum', (_, handler, field) => {
    const issues = validateStepConfig(handler.id, { ...minimal(handler), [field.key]: field.max! + 1 }, BASE);
    expect(codes(issues)).toEqual([`out_of_range ${at(field.key)}`]);
    expect(validateStepConfig(handler.id, { ...minimal(handler), [field.key]: field.max! }, BASE)).toEqual([]);
  });

  it.each(fields.filter(([, , f]) => f.clamped))('%s: nothing outside its bounds, which the runtime clamps', (_, handler, field) => {
    expect(validateStepConfig(handler.id, { ...minimal(handler), [field.key]: field.max! + 100 }, BASE)).toEqual([]);
    expect(validateStepConfig(handler.id, { ...minimal(handler), [field.key]: field.min! - 0.5 }, BASE)).toEqual([]);
  });

  it.each(fields.filter(([, , f]) => f.format))('%s: malformed values', (_, handler, field) => {
    for (const bad of BAD[field.format!]) {
      const value = field.type === 'string[]' ? [GOOD[field.format!], bad] : bad;
      const path = field.type === 'string[]' ? `${at(field.key)}[1]` : at(field.key);
      expect(codes(validateStepConfig(handler.id, { ...minimal(handler), [field.key]: value }, BASE)), bad).toContain(
        `invalid_value ${path}`,
      );
    }
  });

  it.each(fields.filter(([, , f]) => f.required))('%s: absent or blank when required', (_, handler, field) => {
    const without = { ...minimal(handler) };
    delete without[field.key];
    expect(codes(validateStepConfig(handler.id, without, BASE))).toEqual([`missing_required ${at(field.key)}`]);
    expect(codes(validateStepConfig(handler.id, { ...without, [field.key]: '  ' }, BASE))).toEqual([`missing_required ${at(field.key)}`]);
  });

  it.each(fields.filter(([, , f]) => f.keyValue))('%s: malformed KEY=VALUE text and keys', (_, handler, field) => {
    const key = field.groupedKeys ? 'routers:A' : 'A';
    const value = field.secretValues ? GOOD.secret_ref : 'x';
    for (const text of ['no equals sign', `${key}=${value}\n${key}=${value}`, `=${value}`, `BAD KEY=${value}`]) {
      expect(codes(validateStepConfig(handler.id, { ...minimal(handler), [field.key]: text }, BASE)), text).toEqual([
        `invalid_value ${at(field.key)}`,
      ]);
    }
    expect(codes(validateStepConfig(handler.id, { ...minimal(handler), [field.key]: { '': value } }, BASE))).toEqual([
      `invalid_value ${at(field.key)}[""]`,
    ]);
  });

  it('covers every string format of the catalogue', () => {
    const used = new Set(fields.map(([, , f]) => f.format).filter(Boolean));
    expect([...used].sort()).toEqual([...STRING_FORMATS].sort());
  });
});

describe('validateStepConfig, handler and keys', () => {
  it("refuses an unknown handler on the step's handler member", () => {
    expect(validateStepConfig('ansible.run', {}, BASE)).toEqual([
      { path: 'steps[3].handler', code: 'unknown_handler', message: expect.any(String) },
    ]);
    expect(codes(validateStepConfig('ansible.run', {}, 'config'))).toEqual(['unknown_handler config']);
  });

  it('refuses unknown fields by name, quoting keys that are not identifiers', () => {
    expect(codes(validateStepConfig('general.sleep', { seconds: 5, second: 5, 'x-y': 1 }, BASE))).toEqual([
      `unknown_field ${at('second')}`,
      `unknown_field ${BASE}["x-y"]`,
    ]);
  });

  it('refuses a configuration that is not an object', () => {
    for (const config of [null, [], 'seconds=5', 5])
      expect(codes(validateStepConfig('general.sleep', config, BASE))).toEqual([`wrong_type ${BASE}`]);
  });

  it('reports every issue of a configuration, not only the first', () => {
    expect(codes(validateStepConfig('monitor.connectivity', { port: 0, interval_ms: 50, check_type: 'udp', extra: 1 }, BASE))).toEqual([
      `unknown_field ${at('extra')}`,
      `not_in_enum ${at('check_type')}`,
      `out_of_range ${at('port')}`,
      `out_of_range ${at('interval_ms')}`,
    ]);
  });
});

describe('validateStepConfig, templates', () => {
  it('accepts a whole-value template in number, boolean, enum and list fields', () => {
    const config = {
      port: '{{ inputs.port }}',
      check_type: '{{inputs.check}}',
      count: '{{ inputs.n | int }}',
      url_path: 'x {{ inputs.path }}',
    };
    expect(validateStepConfig('monitor.connectivity', config, BASE)).toEqual([]);
    expect(validateStepConfig('netcli.execute', { commands: '{{ inputs.commands }}' }, BASE)).toEqual([]);
    expect(
      validateStepConfig('netos.upgrade.install', { image_name: '{{ inputs.image }}', activate: '{{ inputs.reload }}' }, BASE),
    ).toEqual([]);
    expect(validateStepConfig('flow.run', { flow_name: 'child', version: '{{ inputs.version }}' }, BASE)).toEqual([]);
  });

  it('refuses other strings in a number field', () => {
    for (const port of ['22', 'port {{ inputs.port }}', '{{ a }}{{ b }}', '{{ }}', '{{ inputs.port']) {
      expect(codes(validateStepConfig('monitor.connectivity', { port }, BASE)), port).toEqual([`wrong_type ${at('port')}`]);
    }
  });

  it('skips format checks of templated strings, but a templated URL must still start as one', () => {
    expect(validateStepConfig('flow.run', { flow_id: '{{ inputs.child }}' }, BASE)).toEqual([]);
    expect(validateStepConfig('netos.upgrade.stage', { source_url: 'https://{{ inputs.host }}/os.bin' }, BASE)).toEqual([]);
    expect(validateStepConfig('netos.upgrade.stage', { source_url: '{{ inputs.url }}' }, BASE)).toEqual([]);
    expect(codes(validateStepConfig('netos.upgrade.stage', { source_url: 'tftp://{{ inputs.host }}/os.bin' }, BASE))).toEqual([
      `invalid_value ${at('source_url')}`,
    ]);
    expect(validateStepConfig('playbook.run', { playbook: 'site.yml', secrets: { DB: "{{ secret('db/password') }}" } }, BASE)).toEqual([]);
  });
});

describe('validateStepConfig, KEY=VALUE fields', () => {
  it('accepts an object of strings or a text of lines, skipping blanks, comments and template lines', () => {
    expect(validateStepConfig('shell.execute', { env: { A: '1', B: 'two' } }, BASE)).toEqual([]);
    expect(validateStepConfig('shell.execute', { env: 'A=1\n\n# comment\nB = two words\nC=\n{{ inputs.more_env }}\n' }, BASE)).toEqual([]);
  });

  it('ignores SERVICE_ keys, whatever they hold', () => {
    expect(validateStepConfig('container.run', { image: 'alpine:3', env: { SERVICE_TOKEN: 5 }, secrets: 'SERVICE_X=plain' }, BASE)).toEqual(
      [],
    );
    expect(stripReservedKeys({ SERVICE_TOKEN: 'a', PATH: '/bin', service_lower: 'kept' })).toEqual({ PATH: '/bin', service_lower: 'kept' });
    expect(keyValueMap('A=1\nSERVICE_B=2\nC=x=y')).toEqual({ A: '1', C: 'x=y' });
  });

  it('takes any JSON value in vars but only strings elsewhere', () => {
    expect(validateStepConfig('iac.plan', { vars: { regions: ['eu', 'us'], size: 3, tags: { a: 'b' } } }, BASE)).toEqual([]);
    expect(codes(validateStepConfig('iac.plan', { env: { SIZE: 3 } }, BASE))).toEqual([`wrong_type ${at('env')}.SIZE`]);
  });

  it('needs secret references as the values of secret maps', () => {
    expect(codes(validateStepConfig('iac.plan', { secret_env: 'TF_TOKEN=plaintext-token' }, BASE))).toEqual([
      `invalid_value ${at('secret_env')}.TF_TOKEN`,
    ]);
    expect(codes(validateStepConfig('playbook.run', { playbook: 'a.yml', vault_ids: { prod: '' } }, BASE))).toEqual([
      `invalid_value ${at('vault_ids')}.prod`,
    ]);
  });

  it('needs GROUP:NAME keys in group_secrets', () => {
    expect(codes(validateStepConfig('playbook.run', { playbook: 'a.yml', group_secrets: { ENABLE: GOOD.secret_ref } }, BASE))).toEqual([
      `invalid_value ${at('group_secrets')}.ENABLE`,
    ]);
  });
});

describe('validateStepConfig, mode entries', () => {
  it('checks the modes of flow.run mappings and what a mode needs', () => {
    const ok = {
      flow_name: 'child',
      field_mappings: { a: { mode: 'literal', value: '' }, b: { mode: 'default' } },
      target_mappings: { r: { mode: 'parent_role', parent_role_id: 'core' } },
    };
    expect(validateStepConfig('flow.run', ok, BASE)).toEqual([]);
    expect(
      codes(
        validateStepConfig('flow.run', { flow_name: 'c', field_mappings: { a: { mode: 'copy' }, b: 'x', c: { mode: 'template' } } }, BASE),
      ),
    ).toEqual([
      `not_in_enum ${at('field_mappings')}.a.mode`,
      `wrong_type ${at('field_mappings')}.b`,
      `missing_required ${at('field_mappings')}.c.value`,
    ]);
    expect(codes(validateStepConfig('flow.run', { flow_name: 'c', target_mappings: { r: { mode: 'parent_role' } } }, BASE))).toEqual([
      `missing_required ${at('target_mappings')}.r.parent_role_id`,
    ]);
  });
});

describe('validateStepConfig, cross-field rules', () => {
  it('flow.run: exactly one of flow_id and flow_name', () => {
    expect(codes(validateStepConfig('flow.run', {}, BASE))).toEqual([`missing_required ${at('flow_id')}`]);
    expect(codes(validateStepConfig('flow.run', { flow_id: '', flow_name: '' }, BASE))).toEqual([`missing_required ${at('flow_id')}`]);
    expect(codes(validateStepConfig('flow.run', { flow_id: GOOD.uuid, flow_name: 'child' }, BASE))).toEqual([
      `invalid_value ${at('flow_name')}`,
    ]);
    expect(validateStepConfig('flow.run', { flow_id: GOOD.uuid }, BASE)).toEqual([]);
  });

  it('netos.upgrade.stage: not both file_ids and source_url; source_url http/https only', () => {
    expect(codes(validateStepConfig('netos.upgrade.stage', { file_ids: [GOOD.uuid], source_url: GOOD.http_url }, BASE))).toEqual([
      `invalid_value ${at('source_url')}`,
    ]);
    expect(validateStepConfig('netos.upgrade.stage', { file_ids: [], source_url: GOOD.http_url }, BASE)).toEqual([]);
    expect(codes(validateStepConfig('netos.upgrade.stage', { source_url: 'scp://host/os.bin' }, BASE))).toEqual([
      `invalid_value ${at('source_url')}`,
    ]);
  });

  it('netos.upgrade.stage: legacy transfer methods are refused with an explanation', () => {
    for (const method of ['scp', 'tftp', 'SFTP', 'ftp']) {
      const [issue] = validateStepConfig('netos.upgrade.stage', { transfer_method: method }, BASE);
      expect(issue?.code).toBe('not_in_enum');
      expect(issue?.path).toBe(at('transfer_method'));
      expect(issue?.message).toContain('legacy');
    }
  });

  it.each([
    ['attach_docker_socket', true],
    ['privileged', true],
    ['pid_mode', 'host'],
    ['extra_mounts', ['/srv:/srv']],
    ['network_mode', 'backend'],
    ['network_disabled', true],
    ['privileged', '{{ inputs.privileged }}'],
  ])('container.run: egress options cannot be combined with %s', (key, value) => {
    for (const egress of [{ egress_mode: 'deny-all' }, { egress_allow: ['10.0.0.0/8'] }, { egress_deny: ['192.0.2.0/24:22/tcp'] }]) {
      const issues = validateStepConfig('container.run', { image: 'alpine:3', ...egress, [key]: value }, BASE);
      expect(codes(issues)).toEqual([`invalid_value ${at(Object.keys(egress)[0]!)}`]);
    }
    expect(
      validateStepConfig('container.run', { image: 'alpine:3', egress_mode: '', egress_allow: [], privileged: false, [key]: value }, BASE),
    ).toEqual([]);
  });

  it('shell.execute: env is not supported with pwsh', () => {
    expect(codes(validateStepConfig('shell.execute', { shell: 'pwsh', env: 'A=1' }, BASE))).toEqual([`invalid_value ${at('env')}`]);
    expect(validateStepConfig('shell.execute', { shell: 'pwsh', env: '' }, BASE)).toEqual([]);
  });

  it('monitor.connectivity: icmp_ping and dns_resolve refuse a proxy; probe.connectivity: icmp_ping does', () => {
    const proxy = GOOD.socks5_url;
    expect(codes(validateStepConfig('monitor.connectivity', { check_type: 'icmp_ping', socks_proxy: proxy }, BASE))).toEqual([
      `invalid_value ${at('socks_proxy')}`,
    ]);
    expect(codes(validateStepConfig('monitor.connectivity', { check_type: 'dns_resolve', socks_proxy: proxy }, BASE))).toEqual([
      `invalid_value ${at('socks_proxy')}`,
    ]);
    expect(validateStepConfig('monitor.connectivity', { check_type: 'http_health', socks_proxy: proxy }, BASE)).toEqual([]);
    expect(codes(validateStepConfig('probe.connectivity', { check_type: 'icmp_ping', socks_proxy: proxy }, BASE))).toEqual([
      `invalid_value ${at('socks_proxy')}`,
    ]);
    expect(validateStepConfig('probe.connectivity', { socks_proxy: proxy }, BASE)).toEqual([]);
  });

  it('iac.plan: state encryption is opentofu only; backend_config only for backend state', () => {
    expect(codes(validateStepConfig('iac.plan', { engine: 'terraform', state_encryption_key: GOOD.secret_ref }, BASE))).toEqual([
      `invalid_value ${at('state_encryption_key')}`,
    ]);
    expect(validateStepConfig('iac.plan', { state_encryption_key: GOOD.secret_ref }, BASE)).toEqual([]);
    expect(codes(validateStepConfig('iac.plan', { backend_config: 'bucket=tf' }, BASE))).toEqual([`invalid_value ${at('backend_config')}`]);
    expect(validateStepConfig('iac.plan', { state: 'backend', backend_config: 'bucket=tf' }, BASE)).toEqual([]);
  });

  it('does not repeat a refusal a field already has on its own', () => {
    expect(codes(validateStepConfig('shell.execute', { shell: 'pwsh', env: 5 }, BASE))).toEqual([`wrong_type ${at('env')}`]);
  });
});

describe('narrowedFields', () => {
  it('names the host-access and egress options a step sets to non-default values', () => {
    const config = {
      image: 'alpine:3',
      privileged: true,
      attach_docker_socket: false,
      pid_mode: '',
      extra_mounts: [],
      egress_mode: 'open',
      egress_deny: ['10.0.0.0/8'],
    };
    expect(narrowedFields({ handler: 'container.run', config })).toEqual([
      { key: 'privileged', narrowing: 'host_access', value: true },
      { key: 'egress_mode', narrowing: 'egress', value: 'open' },
      { key: 'egress_deny', narrowing: 'egress', value: ['10.0.0.0/8'] },
    ]);
  });

  it('counts a template as set, since what it renders to is unknown', () => {
    expect(narrowedFields({ handler: 'container.run', config: { network_mode: '{{ inputs.net }}' } }).map((u) => u.key)).toEqual([
      'network_mode',
    ]);
  });

  it('covers the egress options of the common container fields', () => {
    expect(narrowedFields({ handler: 'iac.plan', config: { egress_allow: ['registry:443'] } }).map((u) => u.narrowing)).toEqual(['egress']);
    expect(narrowedFields({ handler: 'playbook.run', config: { playbook: 'a.yml' } })).toEqual([]);
  });

  it('answers nothing for unknown handlers and non-object configurations', () => {
    expect(narrowedFields({ handler: 'nope', config: { privileged: true } })).toEqual([]);
    expect(narrowedFields({ handler: 'container.run', config: 'privileged' })).toEqual([]);
  });
});

describe('validateStepConfig is fast', () => {
  it('checks a hundred full configurations well within a draft save', () => {
    const configs = checked.map((h) => [h.id, full(h)] as const);
    const rounds = Array.from({ length: 100 }, () => configs);
    // Not a timing assertion: a sanity bound that catches accidental quadratic work or I/O.
    let issues = 0;
    for (const round of rounds) for (const [id, config] of round) issues += validateStepConfig(id, config, BASE).length;
    expect(issues).toBe(0);
  });
});
