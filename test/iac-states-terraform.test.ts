import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCallbacksWorld, type CallbacksWorld } from './helpers/callbacks-fixtures.js';
import { mintStateToken, type StateToken } from './helpers/iac-fixtures.js';

/**
 * A real Terraform (or OpenTofu) against the daemon's http backend, authenticated by a run token over
 * HTTP Basic: init, plan and apply with only the built-in `terraform_data` resource (no provider is
 * downloaded: it runs offline), and two applies racing for one state.
 */
function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}
const TERRAFORM = onPath('terraform') ?? onPath('tofu');
const SKIP_REASON = 'skipped: neither terraform nor tofu is on PATH';
if (!TERRAFORM) console.warn(`test/iac-states-terraform.test.ts: ${SKIP_REASON}`);

const MAIN_TF = `
terraform {
  backend "http" {}
}

variable "value" {
  type    = string
  default = "one"
}

# Holds the apply until the test creates ./release: the first of two racing applies keeps its lock meanwhile.
variable "hold" {
  type    = bool
  default = false
}

resource "terraform_data" "example" {
  input = var.value

  provisioner "local-exec" {
    command = var.hold ? "while [ ! -f release ]; do sleep 0.05; done" : "true"
  }
}

output "value" {
  value = terraform_data.example.output
}
`;

interface Ran {
  readonly code: number | null;
  readonly out: string;
}

let world: CallbacksWorld;
let scratch: string;

beforeAll(async () => {
  if (!TERRAFORM) return;
  world = await startCallbacksWorld();
  scratch = await mkdtemp(join(tmpdir(), 'svc-terraform-'));
  await writeFile(join(scratch, 'terraformrc'), '');
});
afterAll(async () => {
  await world?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** A working directory for `state`, initialised against the daemon with `token`. */
async function workdir(name: string, state: string, token: StateToken): Promise<{ dir: string; run: (args: string[]) => Promise<Ran> }> {
  const dir = join(scratch, name);
  await rm(dir, { recursive: true, force: true });
  await import('node:fs/promises').then((fs) => fs.mkdir(dir));
  await writeFile(join(dir, 'main.tf'), MAIN_TF);
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: scratch,
    TF_CLI_CONFIG_FILE: join(scratch, 'terraformrc'),
    TF_IN_AUTOMATION: '1',
    CHECKPOINT_DISABLE: '1',
    TF_HTTP_USERNAME: 'terraform',
    TF_HTTP_PASSWORD: token.token,
  };
  const run = (args: string[]) =>
    new Promise<Ran>((resolve, reject) => {
      const child = spawn(TERRAFORM!, [...args, '-no-color', '-input=false'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.on('data', (c: Buffer) => (out += c.toString()));
      child.on('error', reject);
      child.on('exit', (code) => resolve({ code, out }));
    });
  const address = `${world.daemon.url}/iac-states/${state}`;
  const init = await run([
    'init',
    `-backend-config=address=${address}/state`,
    `-backend-config=lock_address=${address}/lock`,
    `-backend-config=unlock_address=${address}/lock`,
    '-backend-config=lock_method=POST',
    '-backend-config=unlock_method=DELETE',
  ]);
  expect(init.code, init.out).toBe(0);
  return { dir, run };
}

async function versions(state: string): Promise<{ items: { version: number; serial: number }[] }> {
  const response = await fetch(`${world.daemon.url}/iac-states/${state}/versions`, {
    headers: { authorization: world.operator, 'x-org-id': 'acme' },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { items: { version: number; serial: number }[] };
}

describe.skipIf(!TERRAFORM)(`terraform against the state backend (${TERRAFORM ? TERRAFORM : SKIP_REASON})`, () => {
  it('inits, plans and applies with a run token; the state is versioned and read back through the API', async () => {
    const token = await mintStateToken(world, 'e2e');
    const { run } = await workdir('e2e', 'e2e', token);
    const plan = await run(['plan']);
    expect(plan.code, plan.out).toBe(0);
    expect(plan.out).toContain('1 to add');
    const apply = await run(['apply', '-auto-approve']);
    expect(apply.code, apply.out).toBe(0);
    const change = await run(['apply', '-auto-approve', '-var', 'value=two']);
    expect(change.code, change.out).toBe(0);

    const listed = await versions('e2e');
    expect(listed.items.length).toBeGreaterThanOrEqual(2);
    const newest = listed.items[0]!;
    const content = await fetch(`${world.daemon.url}/iac-states/e2e/versions/${newest.version}/content`, {
      headers: { authorization: world.operator, 'x-org-id': 'acme' },
    });
    const document = (await content.json()) as {
      serial: number;
      resources: { type: string; instances: { attributes: { input: { value: string } } }[] }[];
    };
    expect(document.serial).toBe(newest.serial);
    expect(document.resources[0]).toMatchObject({ type: 'terraform_data', instances: [{ attributes: { input: { value: 'two' } } }] });
    const state = (await (
      await fetch(`${world.daemon.url}/iac-states/e2e`, { headers: { authorization: world.operator, 'x-org-id': 'acme' } })
    ).json()) as {
      lock: unknown;
    };
    expect(state.lock).toBeNull();
    // The stored version is ciphertext: the document's text is nowhere in the row.
    const rows = await world.knex('iac_state_versions').select('ciphertext');
    for (const row of rows) expect((row.ciphertext as Buffer).toString('utf8')).not.toContain('terraform_data');
  });

  it('fails the second of two racing applies, naming the holder of the lock; the first completes', async () => {
    const first = await workdir('race-a', 'race', await mintStateToken(world, 'race'));
    const second = await workdir('race-b', 'race', await mintStateToken(world, 'race'));
    const running = first.run(['apply', '-auto-approve', '-var', 'hold=true']);
    let holder: string | undefined;
    while (!holder) {
      const row = await world.knex('iac_states').where({ org_id: world.orgId, name: 'race' }).first('lock_id');
      holder = (row?.lock_id as string | null) ?? undefined;
      if (!holder) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const lost = await second.run(['apply', '-auto-approve', '-lock-timeout=0s']);
    expect(lost.code).not.toBe(0);
    expect(lost.out).toContain(`ID=${holder}`);
    await writeFile(join(first.dir, 'release'), '');
    const won = await running;
    expect(won.code, won.out).toBe(0);
    expect((await versions('race')).items.length).toBeGreaterThanOrEqual(1);
  });
});
